import { ConflictException, Inject, Injectable, NotFoundException, BadRequestException } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { pgPool } from '../../database/pg-client';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { GeoService } from '../geo/geo.service';
import { JobQueue } from '../jobs/job-queue';
import { LicensePoolService } from '../license/license-pool.service';
import { stripManualPrefix } from '../mail/redemption-mail.service';
import { RealtimeService } from '../realtime/realtime.service';
import { RedeemVoucherDto } from './dto/redeem-voucher.dto';
import { GeoBlockedException, REDEEM_MESSAGES } from './redemption.errors';

export interface RedeemResult {
  success: true;
  productName: string;
  successToken: string;
  redemptionId: string;
  isManualProcessing: boolean;
}

export interface SuccessTokenView {
  isManualProcessing: boolean;
  customerEmail: string;
  productName: string;
  licenseKey: string | null;
  downloadLink: string;
}

/*
 * The whole redemption is one statement, hence one implicit transaction and one round trip:
 * claim the code (a conditional UPDATE: of racing requests exactly one sees is_redeemed=false),
 * upsert the customer, take a pool key (SKIP LOCKED), insert the redemption, assignment and token.
 * Nothing is written unless every part succeeds; the unique (customer, product) constraint turns a
 * second licence for the same e-mail into an error that rolls the code back to unredeemed.
 */
export const REDEEM_SQL = `
WITH v AS (
  UPDATE voucher_codes vc SET is_redeemed = true, redeemed_at = now()
    FROM products p
   WHERE vc.code = $1 AND NOT vc.is_redeemed AND p.id = vc.product_id AND p.status = 'active'
  RETURNING vc.id, vc.product_id, p.name, p.is_license_managed
), c AS (
  INSERT INTO customers (first_name, last_name, email, phone, ip_address, country)
  SELECT $2, $3, $4, $5, $6, $7 FROM v
  ON CONFLICT (email) DO UPDATE
     SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
         phone = coalesce(EXCLUDED.phone, customers.phone),
         ip_address = EXCLUDED.ip_address, country = coalesce(EXCLUDED.country, customers.country)
  RETURNING id
), k AS (
  UPDATE license_keys SET current_activations = current_activations + 1, updated_at = now()
   WHERE id = (
     -- A scalar product id lets the planner walk idx_license_keys_pool in order and stop at the first free key.
     SELECT lk.id FROM license_keys lk
      WHERE lk.product_id = (SELECT product_id FROM v WHERE is_license_managed)
        AND lk.is_active AND lk.current_activations < lk.max_activations
      ORDER BY lk.created_at, lk.id LIMIT 1
      FOR UPDATE SKIP LOCKED)
  RETURNING id
), r AS (
  INSERT INTO redemptions (voucher_code_id, customer_id, product_id, awaiting_license)
  SELECT v.id, c.id, v.product_id, v.is_license_managed AND NOT EXISTS (SELECT 1 FROM k) FROM v, c
  RETURNING id, awaiting_license
), a AS (
  INSERT INTO license_assignments (license_key_id, redemption_id) SELECT k.id, r.id FROM k, r
), t AS (
  INSERT INTO success_tokens (token, redemption_id, customer_email, product_name, expires_at)
  SELECT $8, r.id, $4, v.name, now() + make_interval(hours => $9) FROM v, r
)
SELECT r.id, r.awaiting_license, v.name, v.is_license_managed FROM r, v`;

@Injectable()
export class RedemptionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly geo: GeoService,
    private readonly pool: LicensePoolService,
    private readonly jobs: JobQueue,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async redeem(dto: RedeemVoucherDto, ip: string): Promise<RedeemResult> {
    const country = this.geo.country(ip);
    if (this.geo.isBlocked(country)) throw new GeoBlockedException();

    const token = randomBytes(32).toString('base64url');
    const values = [
      dto.voucherCode,
      dto.firstName,
      dto.lastName,
      dto.email,
      dto.phone || null,
      ip || null,
      country,
      token,
      this.config.successTokenTtlHours,
    ];
    let rows: Array<{ id: string; awaiting_license: boolean; name: string; is_license_managed: boolean }>;
    try {
      // A named statement: each pooled connection parses and plans it once (the hot path of the service).
      ({ rows } = await pgPool(this.dataSource).query({ name: 'redeem-voucher', text: REDEEM_SQL, values }));
    } catch (err) {
      if (isUniqueViolation(err, 'uq_redemptions_customer_product')) {
        throw new ConflictException(REDEEM_MESSAGES.alreadyIssued);
      }
      // Two first-time redemptions of one code cannot both pass the claim; anything else is unexpected.
      throw err;
    }
    if (!rows.length) throw await this.whyNotRedeemable(dto.voucherCode);

    const [{ id, name }] = rows;
    let manual = rows[0].awaiting_license;
    if (manual) manual = !(await this.pool.assignFromPool(id));
    if (!manual) this.jobs.enqueueRedemptionMail(id);
    // A redeemed code changes the product counts and stats; a pool key handed out is a licence assignment.
    this.realtime.emitThrottled(
      rows[0].is_license_managed && !manual ? 'licenseAssignment' : 'voucherUpdate',
      `Voucher ${dto.voucherCode} redeemed`,
    );
    return { success: true, productName: name, successToken: token, redemptionId: id, isManualProcessing: manual };
  }

  /** Only reached on the failure path, so the happy path stays one round trip. */
  private async whyNotRedeemable(code: string) {
    const [row] = await this.dataSource.query(
      `SELECT vc.is_redeemed, p.status FROM voucher_codes vc JOIN products p ON p.id = vc.product_id WHERE vc.code = $1`,
      [code],
    );
    if (!row) return new NotFoundException(REDEEM_MESSAGES.unknownCode);
    if (row.is_redeemed) return new ConflictException(REDEEM_MESSAGES.usedCode);
    return new BadRequestException(REDEEM_MESSAGES.inactiveProduct);
  }

  /** The success page's view of a redemption; the licence is read live, so a later assignment shows up. */
  async successToken(token: string): Promise<SuccessTokenView> {
    const [row] = await this.dataSource.query(
      `SELECT t.customer_email, t.product_name, r.awaiting_license, p.is_license_managed,
              p.product_key, p.download_link AS product_link, lk.license_key, lk.download_link AS license_link
         FROM success_tokens t
         JOIN redemptions r ON r.id = t.redemption_id
         JOIN products p ON p.id = r.product_id
         LEFT JOIN LATERAL (
           SELECT k.license_key, k.download_link FROM license_assignments a
             JOIN license_keys k ON k.id = a.license_key_id
            WHERE a.redemption_id = r.id ORDER BY a.assigned_at DESC LIMIT 1
         ) lk ON true
        WHERE t.token = $1 AND t.expires_at > now()`,
      [token],
    );
    if (!row) throw new NotFoundException(REDEEM_MESSAGES.invalidToken);
    const manual: boolean = row.awaiting_license;
    const key = row.is_license_managed ? row.license_key : row.product_key;
    return {
      isManualProcessing: manual,
      customerEmail: row.customer_email,
      productName: row.product_name,
      licenseKey: manual || !key ? null : stripManualPrefix(key),
      downloadLink: manual ? '' : (row.license_link ?? row.product_link ?? ''),
    };
  }
}

function isUniqueViolation(err: unknown, constraint: string): boolean {
  // A pg error straight from the pool, or the same wrapped by TypeORM.
  const pgError = (err instanceof QueryFailedError ? err.driverError : err) as { code?: string; constraint?: string };
  return pgError?.code === '23505' && pgError.constraint === constraint;
}
