import { AuditModule } from '../../backend/src/modules/audit/audit.module';
import { JobsModule } from '../../backend/src/modules/jobs/jobs.module';
import { LicenseKeyAdminRepository } from '../../backend/src/modules/license/license-key-admin.repository';
import { LicensePoolStartRepository } from '../../backend/src/modules/license/license-pool-start.repository';
import { LicenseModule } from '../../backend/src/modules/license/license.module';
import { RealtimeModule } from '../../backend/src/modules/realtime/realtime.module';
import { RedeemVoucherDto } from '../../backend/src/modules/redemption/dto/redeem-voucher.dto';
import { RedemptionModule } from '../../backend/src/modules/redemption/redemption.module';
import { RedemptionService } from '../../backend/src/modules/redemption/redemption.service';
import { countedKeyUpdate } from '../helpers/counted-sql';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from '../helpers/factories';
import { MediumModule, startMediumModule } from '../helpers/medium';
import { eventually } from '../helpers/redemptions';
import { randomHex } from '../helpers/seed';

/**
 * The pool's start (docs/architecture.md "The pool's start"): the redemption scans the pool from its product's start,
 * the job moves the start to the first key with room, the key writers move it back, and a key left behind a start
 * by any writer is still given (RedemptionService's retry through PoolAssignmentService). docs/product.md §11.7: the oldest active key with room is taken.
 */
describe('the pool start (medium)', () => {
  let m: MediumModule;
  let redemptions: RedemptionService;
  let starts: LicensePoolStartRepository;
  let keys: LicenseKeyAdminRepository;

  beforeAll(async () => {
    m = await startMediumModule((config) => [
      AuditModule,
      RealtimeModule,
      LicenseModule,
      RedemptionModule,
      JobsModule.forRoot(config, { processJobs: false }),
    ]);
    redemptions = m.get(RedemptionService);
    starts = m.get(LicensePoolStartRepository);
    keys = m.get(LicenseKeyAdminRepository);
  });
  afterAll(() => m?.close());

  /** A product with `names` keys, oldest first (one second apart), and as many codes. */
  const pool = async (names: string[]) => {
    const product = await licenseManagedProduct(m.db, `Start ${randomCode('P')}`);
    const ids: string[] = [];
    for (const name of names) ids.push(await addLicenseKey(m.db, product, name));
    await m.db.query(
      countedKeyUpdate(
        `created_at = now() - make_interval(secs => 100 - array_position($2::uuid[], k.id))`,
        `k.id = ANY($2::uuid[]) AND k.product_id = $1`,
      ),
      [product, ids],
    );
    const codes = await addCodes(
      m.db,
      product,
      names.map(() => randomCode('PS')),
    );
    return { product, ids, codes };
  };
  /** The key a redemption of `code` was given. */
  const redeem = async (code: string): Promise<string | null> => {
    const body = redeemBody({ voucherCode: code, email: `start.${randomHex(4)}@example.com` });
    const { redemptionId } = await redemptions.redeem(body as unknown as RedeemVoucherDto, {
      ip: '198.51.100.20',
      userAgent: 'medium',
      idempotencyKey: null,
    });
    const [row] = await m.db.query(`SELECT license_key_id FROM license_assignments WHERE redemption_id = $1`, [
      redemptionId,
    ]);
    return row?.license_key_id ?? null;
  };
  const startOf = async (product: string): Promise<string | null> => {
    const [row] = await m.db.query(`SELECT key_id FROM license_pool_starts WHERE product_id = $1`, [product]);
    return row?.key_id ?? null;
  };

  it('moves to the first key with room, and the redemption goes on from there in order', async () => {
    const { product, ids, codes } = await pool(['START-A', 'START-B', 'START-C', 'START-D']);
    expect(await startOf(product)).toBeNull();
    expect(await redeem(codes[0])).toBe(ids[0]);
    expect(await redeem(codes[1])).toBe(ids[1]);
    expect(await starts.advance()).toBeGreaterThanOrEqual(1);
    expect(await startOf(product)).toBe(ids[2]);
    expect(await redeem(codes[2])).toBe(ids[2]);
    expect(await starts.advance()).toBeGreaterThanOrEqual(1);
    expect(await startOf(product)).toBe(ids[3]);
    // A start at its first free key stays.
    await starts.advance();
    expect(await startOf(product)).toBe(ids[3]);
  });

  it('a key switched on behind the start moves the start back to it and is given first (the oldest)', async () => {
    const { product, ids, codes } = await pool(['BACK-A', 'BACK-B', 'BACK-C']);
    expect(await keys.setActive(ids[0], false)).toBe(true);
    await starts.advance();
    expect(await startOf(product)).toBe(ids[1]);
    expect(await keys.setActive(ids[0], true)).toBe(true);
    expect(await startOf(product)).toBe(ids[0]);
    expect(await redeem(codes[0])).toBe(ids[0]);
    expect(await redeem(codes[1])).toBe(ids[1]);
  });

  it('a key added with room moves no start forward, and a start past every key with room still finds them', async () => {
    const { product, ids, codes } = await pool(['PAST-A', 'PAST-B']);
    await starts.advance();
    expect(await startOf(product)).toBe(ids[0]);
    const added = await keys.insertPoolKey({
      productId: product,
      licenseKey: 'PAST-ADDED',
      downloadLink: 'https://dl.example.com/p.exe',
      licenseType: 'single-user',
      maxActivations: 1,
    });
    expect(await startOf(product)).toBe(ids[0]);
    // A start some writer left past keys with room (as a writer that did not move it back would): the pool after it
    // runs dry, and the redemption's retry (from the pool's beginning) still takes the oldest of them.
    await m.db.query(
      `UPDATE license_pool_starts SET key_created_at = 'infinity', key_id = gen_random_uuid() WHERE product_id = $1`,
      [product],
    );
    expect(await redeem(codes[0])).toBe(ids[0]);
    expect(await redeem(codes[1])).toBe(ids[1]);
    const [extra] = await addCodes(m.db, product, [randomCode('PS')]);
    expect(await redeem(extra)).toBe(added);
  });

  it('keeps a start a writer moved back while it ran (compare-and-set)', async () => {
    const { product, ids, codes } = await pool(['CAS-A', 'CAS-B', 'CAS-C']);
    expect(await keys.setActive(ids[0], false)).toBe(true);
    await starts.advance();
    expect(await startOf(product)).toBe(ids[1]);
    expect(await redeem(codes[0])).toBe(ids[1]);
    // A writer switches CAS-A on, which moves the start back to it, and holds its transaction open.
    const writer = m.db.createQueryRunner();
    await writer.connect();
    await writer.startTransaction();
    await writer.query(countedKeyUpdate('is_active = true', 'k.id = $1'), [ids[0]]);
    // The job runs meanwhile: its snapshot sees CAS-A off and the start at CAS-B, so it would move it to CAS-C; it
    // waits for the start's row lock.
    const advancing = starts.advance();
    await eventually(
      async () =>
        (
          await m.db.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE license_pool_starts%'`,
          )
        )[0].n > 0,
      10_000,
      'the job waiting for the start row',
    );
    await writer.commitTransaction();
    await writer.release();
    expect(await advancing).toBe(0);
    expect(await startOf(product)).toBe(ids[0]);
    expect(await redeem(codes[1])).toBe(ids[0]);
  });
});
