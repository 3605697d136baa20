import { HttpException } from '@nestjs/common';
import { AuditModule } from '../../backend/src/modules/audit/audit.module';
import { JobsModule } from '../../backend/src/modules/jobs/jobs.module';
import { RealtimeModule } from '../../backend/src/modules/realtime/realtime.module';
import { RedeemVoucherDto } from '../../backend/src/modules/redemption/dto/redeem-voucher.dto';
import { REDEEM_MESSAGES } from '../../backend/src/modules/redemption/redemption.errors';
import { idempotencyKeyHash } from '../../backend/src/modules/redemption/redemption.repository';
import {
  RedeemRequestMeta,
  REPEAT_ACTION,
  RedemptionService,
} from '../../backend/src/modules/redemption/redemption.service';
import { RedemptionModule } from '../../backend/src/modules/redemption/redemption.module';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  productId,
  PRODUCTS,
  randomCode,
  redeemBody,
} from '../helpers/factories';
import { MediumModule, startMediumModule } from '../helpers/medium';
import { randomHex } from '../helpers/seed';

/**
 * The redemption's rules (docs/product.md §6, §19.1) on RedemptionService and its one statement, without HTTP: code
 * states, "already issued", the repeat with the redeem page's Idempotency-Key. The HTTP side (status codes in the
 * error body, validation of the form, geo-blocking, the rate limit) stays in test/redemption.e2e-spec.ts,
 * test/redemption-rules.e2e-spec.ts and test/redeem-idempotency.e2e-spec.ts.
 */
describe('RedemptionService.redeem on PostgreSQL (medium)', () => {
  let m: MediumModule;
  let service: RedemptionService;
  let mac: string;

  beforeAll(async () => {
    m = await startMediumModule((config) => [
      AuditModule,
      RealtimeModule,
      RedemptionModule,
      JobsModule.forRoot(config, { processJobs: false }),
    ]);
    service = m.get(RedemptionService);
    mac = await productId(m.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => m?.close());

  const meta = (idempotencyKey: string | null = null): RedeemRequestMeta => ({
    ip: '198.51.100.10',
    userAgent: 'medium',
    idempotencyKey,
  });
  /** What the validation pipe hands the service: the code upper-cased, the e-mail lower-cased. */
  const dto = (voucherCode: string, email = `ann.${randomHex(4)}@example.com`) =>
    redeemBody({ voucherCode, email }) as unknown as RedeemVoucherDto;
  /** A refusal as the error filter sees it: status and message. */
  const refusal = async (attempt: Promise<unknown>) => {
    const err = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof HttpException)) throw new Error(`expected a refusal, got ${String(err)}`);
    return { status: err.getStatus(), message: err.message };
  };
  const stateOf = async (code: string) => {
    const [row] = await m.db.query(
      `SELECT v.is_redeemed, (SELECT count(*)::int FROM redemptions r WHERE r.voucher_code_id = v.id) AS redemptions,
              (SELECT count(*)::int FROM license_assignments a JOIN redemptions r ON r.id = a.redemption_id
                WHERE r.voucher_code_id = v.id) AS keys,
              (SELECT count(*)::int FROM success_tokens s JOIN redemptions r ON r.id = s.redemption_id
                WHERE r.voucher_code_id = v.id) AS tokens
         FROM voucher_codes v WHERE v.code = $1`,
      [code],
    );
    return row as { is_redeemed: boolean; redemptions: number; keys: number; tokens: number };
  };

  it('a licence-managed code takes a pool key; the success token shows it', async () => {
    const product = await licenseManagedProduct(m.db, `Rules ${randomCode('P')}`);
    const [code] = await addCodes(m.db, product, [randomCode('MR')]);
    await addLicenseKey(m.db, product, 'MEDIUM-KEY-00001', { downloadLink: 'https://dl.example.com/m.exe' });
    const result = await service.redeem(dto(code, 'mixed.case@example.com'), meta());
    expect(result).toEqual({
      success: true,
      productName: expect.stringMatching(/^Rules .* \(Windows\)$/),
      successToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      redemptionId: expect.any(String),
      isManualProcessing: false,
      repeated: false,
    });
    expect(await stateOf(code)).toEqual({ is_redeemed: true, redemptions: 1, keys: 1, tokens: 1 });
    expect(await service.successToken(result.successToken)).toEqual({
      isManualProcessing: false,
      customerEmail: 'mixed.case@example.com',
      voucherCode: code,
      productName: result.productName,
      licenseKey: 'MEDIUM-KEY-00001',
      downloadLink: 'https://dl.example.com/m.exe',
    });
  });

  it('with no usable key (empty pool or only inactive keys) the redemption waits for manual processing', async () => {
    const product = await licenseManagedProduct(m.db, `Manual ${randomCode('P')}`);
    await addLicenseKey(m.db, product, 'INACTIVE-MEDIUM-1', { active: false });
    const [code] = await addCodes(m.db, product, [randomCode('MM')]);
    const result = await service.redeem(dto(code), meta());
    expect(result.isManualProcessing).toBe(true);
    expect(await stateOf(code)).toEqual({ is_redeemed: true, redemptions: 1, keys: 0, tokens: 1 });
    expect(await service.successToken(result.successToken)).toMatchObject({
      isManualProcessing: true,
      licenseKey: null,
      downloadLink: '',
    });
  });

  it('refuses an unknown code (404), a used one (409), a voided one (410) and an inactive product (400)', async () => {
    expect(await refusal(service.redeem(dto('NO-SUCH-CODE-1'), meta()))).toEqual({
      status: 404,
      message: REDEEM_MESSAGES.unknownCode,
    });
    const [used, voided] = await addCodes(m.db, mac, [randomCode('USED'), randomCode('VOID')]);
    await service.redeem(dto(used), meta());
    expect(await refusal(service.redeem(dto(used), meta()))).toEqual({
      status: 409,
      message: REDEEM_MESSAGES.usedCode,
    });
    await m.db.query(`UPDATE voucher_codes SET voided_at = now() WHERE code = $1`, [voided]);
    expect(await refusal(service.redeem(dto(voided), meta()))).toEqual({
      status: 410,
      message: REDEEM_MESSAGES.voidCode,
    });
    const [retired] = await m.db.query(
      `INSERT INTO products (name, status, email_subject, email_template) VALUES ($1, 'inactive', 'S', 'T') RETURNING id`,
      [`Retired ${randomCode('P')} (Mac)`],
    );
    const [off] = await addCodes(m.db, retired.id, [randomCode('OFF')]);
    expect(await refusal(service.redeem(dto(off), meta()))).toEqual({
      status: 400,
      message: REDEEM_MESSAGES.inactiveProduct,
    });
    expect(await stateOf(voided)).toEqual({ is_redeemed: false, redemptions: 0, keys: 0, tokens: 0 });
    expect(await stateOf(off)).toEqual({ is_redeemed: false, redemptions: 0, keys: 0, tokens: 0 });
    expect(await stateOf(used)).toEqual({ is_redeemed: true, redemptions: 1, keys: 0, tokens: 1 });
  });

  it('one licence per product and e-mail: a second code stays unredeemed; another product is fine', async () => {
    const [first, second] = await addCodes(m.db, mac, [randomCode('ONE'), randomCode('TWO')]);
    const email = `once.${randomHex(4)}@example.com`;
    await service.redeem(dto(first, email), meta());
    expect(await refusal(service.redeem(dto(second, email), meta()))).toEqual({
      status: 409,
      message: REDEEM_MESSAGES.alreadyIssued,
    });
    expect(await stateOf(second)).toEqual({ is_redeemed: false, redemptions: 0, keys: 0, tokens: 0 });
    const [other] = await addCodes(m.db, await productId(m.db, PRODUCTS.proPlusWindows), [randomCode('OTHER')]);
    expect((await service.redeem(dto(other, email), meta())).isManualProcessing).toBe(true);
  });

  describe('a repeat of a redeemed code with its e-mail (docs/product.md §19.1)', () => {
    const repeats = (redemptionId: string) =>
      m.db.query(
        `SELECT success, details FROM security_audit_log WHERE action = $1 AND resource_id = $2 ORDER BY created_at`,
        [REPEAT_ACTION, redemptionId],
      );

    async function redeemed(key: string | null) {
      const product = await licenseManagedProduct(m.db, `Repeat ${randomCode('P')}`);
      const [code] = await addCodes(m.db, product, [randomCode('RPT')]);
      await addLicenseKey(m.db, product, `RPT-${randomHex(5).toUpperCase()}`);
      const body = dto(code);
      const first = await service.redeem(body, meta(key));
      return { code, body, first };
    }

    it('the same Idempotency-Key: the same redemption with a fresh token, no second row or key', async () => {
      const key = randomHex(16);
      const { code, body, first } = await redeemed(key);
      // Stored hashed with the redemption, never in clear.
      const [stored] = await m.db.query(
        `SELECT r.idempotency_key_hash, row_to_json(r)::text AS json FROM redemptions r WHERE r.id = $1`,
        [first.redemptionId],
      );
      expect(stored.idempotency_key_hash).toEqual(idempotencyKeyHash(key));
      expect(stored.json).not.toContain(key);
      const again = await service.redeem(body, meta(key));
      expect(again).toEqual({ ...first, successToken: expect.any(String), repeated: true });
      expect(again.successToken).not.toBe(first.successToken);
      expect((await service.successToken(again.successToken)).licenseKey).toMatch(/^RPT-/);
      expect(await stateOf(code)).toEqual({ is_redeemed: true, redemptions: 1, keys: 1, tokens: 2 });
      expect(await repeats(first.redemptionId)).toEqual([{ success: true, details: { granted: true, refusal: null } }]);
    });

    it('without the key, with another key, or after a redemption made without one: 409, the refusal in its history', async () => {
      const keyed = await redeemed(randomHex(16));
      const keyless = await redeemed(null);
      const used = { status: 409, message: REDEEM_MESSAGES.usedCode };
      expect(await refusal(service.redeem(keyed.body, meta()))).toEqual(used);
      expect(await refusal(service.redeem(keyed.body, meta(randomHex(16))))).toEqual(used);
      // A redemption made without a key (an API client) is never answered with a token again.
      expect(await refusal(service.redeem(keyless.body, meta()))).toEqual(used);
      expect(await refusal(service.redeem(keyless.body, meta(randomHex(16))))).toEqual(used);
      expect(await repeats(keyed.first.redemptionId)).toEqual([
        { success: false, details: { granted: false, refusal: 'no-idempotency-key' } },
        { success: false, details: { granted: false, refusal: 'other-idempotency-key' } },
      ]);
      expect(await repeats(keyless.first.redemptionId)).toEqual([
        { success: false, details: { granted: false, refusal: 'no-idempotency-key' } },
        { success: false, details: { granted: false, refusal: 'other-idempotency-key' } },
      ]);
      for (const { code } of [keyed, keyless]) {
        expect(await stateOf(code)).toEqual({ is_redeemed: true, redemptions: 1, keys: 1, tokens: 1 });
      }
    });

    it('the same key with another e-mail or another code gets nothing', async () => {
      const key = randomHex(16);
      const { code, body, first } = await redeemed(key);
      const used = { status: 409, message: REDEEM_MESSAGES.usedCode };
      expect(await refusal(service.redeem(dto(code), meta(key)))).toEqual(used);
      expect(await refusal(service.redeem(dto('NO-SUCH-CODE-2', body.email), meta(key)))).toEqual({
        status: 404,
        message: REDEEM_MESSAGES.unknownCode,
      });
      // Another redemption's code and e-mail with this key: that redemption was made with its own key.
      const other = await redeemed(randomHex(16));
      expect(await refusal(service.redeem(other.body, meta(key)))).toEqual(used);
      expect(await repeats(first.redemptionId)).toEqual([]);
      for (const c of [code, other.code]) {
        expect(await stateOf(c)).toEqual({ is_redeemed: true, redemptions: 1, keys: 1, tokens: 1 });
      }
    });
  });
});
