import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { AuditModule } from '../../backend/src/modules/audit/audit.module';
import { JobsModule } from '../../backend/src/modules/jobs/jobs.module';
import { ProductModule } from '../../backend/src/modules/product/product.module';
import { ProductRepository } from '../../backend/src/modules/product/product.repository';
import { RealtimeModule } from '../../backend/src/modules/realtime/realtime.module';
import { RedeemVoucherDto } from '../../backend/src/modules/redemption/dto/redeem-voucher.dto';
import { RedemptionAdminService } from '../../backend/src/modules/redemption/redemption-admin.service';
import { RedemptionModule } from '../../backend/src/modules/redemption/redemption.module';
import { RedemptionRetentionRepository } from '../../backend/src/modules/redemption/redemption-retention.repository';
import { RedemptionService } from '../../backend/src/modules/redemption/redemption.service';
import { StatsModule } from '../../backend/src/modules/stats/stats.module';
import { StatsRepository } from '../../backend/src/modules/stats/stats.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { VoucherModule } from '../../backend/src/modules/voucher/voucher.module';
import { VoucherVoidService } from '../../backend/src/modules/voucher/voucher-void.service';
import { MISMATCHES_SQL } from '../helpers/counters';
import { licenseManagedProduct, randomCode, redeemBody } from '../helpers/factories';
import { MediumModule, startMediumModule } from '../helpers/medium';

/**
 * The counters (docs/architecture.md "Counters": product_counts per product and batch, redemption_day_counts) after
 * each kind of write, made through the writers' own services and repositories (upload, redeem, void, delete,
 * retention) and read through their readers (ProductRepository, StatsRepository); after every step the counters
 * equal count(*) (MISMATCHES_SQL answers no row). How a writer keeps them (trigger or its own statement) is not
 * looked at. The whole-app figures through HTTP: test/counters-random-operations.e2e-spec.ts.
 */
describe('counters after writes through the services (medium)', () => {
  let m: MediumModule;
  const actor = { adminUserId: null, ipAddress: '127.0.0.1', userAgent: 'medium' };

  beforeAll(async () => {
    m = await startMediumModule((config) => [
      AuditModule,
      RealtimeModule,
      ProductModule,
      VoucherModule,
      RedemptionModule,
      StatsModule,
      JobsModule.forRoot(config, { processJobs: false }),
    ]);
  });
  afterAll(() => m?.close());

  const products = () => m.get(ProductRepository);
  const mismatches = () => m.db.query(MISMATCHES_SQL);

  /** Codes loaded as an upload does (one COPY, one batch); the batch's id. */
  async function upload(product: string, codes: string[]): Promise<string> {
    const { inserted, batchId } = await m
      .get(VoucherCodeRepository)
      .copyIn(product, (copy) => pipeline(Readable.from([codes.join('\n') + '\n']), copy), {
        fileName: 'codes.txt',
        adminUserId: null,
        lines: () => ({ valid: codes.length, invalid: 0, invalidSamples: [] }),
      });
    expect(inserted).toBe(codes.length);
    return batchId;
  }
  const redeem = async (code: string) =>
    (
      await m
        .get(RedemptionService)
        .redeem(redeemBody({ voucherCode: code, email: `${code.toLowerCase()}@example.com` }) as RedeemVoucherDto, {
          ip: '198.51.100.1',
          userAgent: null,
          idempotencyKey: null,
        })
    ).redemptionId;
  const voidCodes = (product: string, codes: string[]) =>
    m
      .get(VoucherVoidService)
      .voidCodes(
        product,
        { stream: Readable.from([]), contentType: 'application/json', complete: () => true },
        codes,
        actor,
      );
  /** Redemptions counted today (the statistics' time zone) per product, from the day counters. */
  async function today(product: string): Promise<number> {
    const stats = m.get(StatsRepository);
    const bounds = await stats.bounds('today', new Date(), m.config.timeZone);
    return (await stats.redemptionsPerProduct(bounds as { from: Date; to: Date }, m.config.timeZone)).get(product) ?? 0;
  }

  it('upload, redeem, void (before and after redemption), delete and retention each leave exact counters', async () => {
    const product = await licenseManagedProduct(m.db, `Counted ${randomCode('P')}`);
    const codes = Array.from({ length: 6 }, () => randomCode('CNT'));
    const batch = await upload(product, codes);
    expect((await products().counts(product)).get(product)).toEqual({
      unredeemed: 6,
      redeemed: 0,
      void: 0,
      redemptions: 0,
    });
    expect((await products().countsByBatch(product)).get(batch)).toEqual({
      unredeemed: 6,
      redeemed: 0,
      void: 0,
      exported: 0,
    });
    expect(await mismatches()).toEqual([]);

    const redemptions = [];
    for (const code of codes.slice(0, 3)) redemptions.push(await redeem(code));
    expect((await products().counts(product)).get(product)).toEqual({
      unredeemed: 3,
      redeemed: 3,
      void: 0,
      redemptions: 3,
    });
    expect(await today(product)).toBe(3);
    expect(await mismatches()).toEqual([]);

    // One code voided before its redemption, one after (a refund: the redemption stays, marked refunded).
    const voided = await voidCodes(product, [codes[5], codes[2]]);
    expect([voided.voided, voided.refundedAfterRedemption.length]).toEqual([1, 1]);
    // The refunded code stays redeemed (its redemption is marked refunded); the other is void.
    const afterVoid = { unredeemed: 2, redeemed: 3, void: 1, redemptions: 3 };
    expect((await products().counts(product)).get(product)).toEqual(afterVoid);
    expect(await mismatches()).toEqual([]);

    await m.get(RedemptionAdminService).remove(redemptions[0], actor);
    expect((await products().counts(product)).get(product)).toEqual({ ...afterVoid, redemptions: 2 });
    expect(await today(product)).toBe(2);
    expect(await mismatches()).toEqual([]);

    // Retention of every redemption up to now (0 days; of this file's other tests too): this product's two go, their
    // codes stay redeemed.
    const [{ n: stored }] = await m.db.query(`SELECT count(*)::int AS n FROM redemptions`);
    expect(await m.get(RedemptionRetentionRepository).deleteOlderThan(0, 1000)).toBe(stored);
    expect((await products().counts(product)).get(product)).toEqual({ ...afterVoid, redemptions: 0 });
    expect(await today(product)).toBe(0);
    expect(await mismatches()).toEqual([]);
  });

  it('a redemption of one product leaves the counters of another untouched', async () => {
    const [a, b] = [
      await licenseManagedProduct(m.db, `Apart A ${randomCode('P')}`),
      await licenseManagedProduct(m.db, `Apart B ${randomCode('P')}`),
    ];
    const codeA = randomCode('APA');
    await upload(a, [codeA]);
    await upload(b, [randomCode('APB'), randomCode('APB')]);
    const before = (await products().counts(b)).get(b);
    await redeem(codeA);
    expect((await products().counts(b)).get(b)).toEqual(before);
    expect((await products().counts(a)).get(a)).toEqual({ unredeemed: 0, redeemed: 1, void: 0, redemptions: 1 });
    expect(await today(b)).toBe(0);
    expect(await mismatches()).toEqual([]);
  });
});
