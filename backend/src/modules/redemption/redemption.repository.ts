import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { createHash } from 'crypto';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService, Db } from '../../database/database.service';
import { returnedRows } from '../../common/utils/sql';
import { queryRows } from '../../database/query-rows';
import { latestLicenseKeySql, openStoredKey } from '../license/license.repository';
import { EmailStatus, Redemption } from './entities/redemption.entity';

/*
 * The whole redemption is one statement, hence one implicit transaction and one round trip:
 * claim the code (a conditional UPDATE: of racing requests exactly one sees is_redeemed=false),
 * upsert the customer, take a pool key (SKIP LOCKED), insert the redemption, assignment and token.
 * Nothing is written unless every part succeeds; the unique (customer, product) constraint turns a
 * second licence for the same e-mail into an error that rolls the code back to unredeemed.
 * It writes voucher_codes and license_keys/license_assignments too: splitting it by table owner would
 * cost the one-round-trip atomicity the service is built on (docs/architecture.md, "One statement").
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
  INSERT INTO success_tokens (token_hash, redemption_id, customer_email, product_name, expires_at)
  SELECT $8, r.id, $4, v.name, now() + make_interval(hours => $9) FROM v, r
)
SELECT r.id, r.awaiting_license, v.name, v.is_license_managed FROM r, v`;

export interface RedeemInput {
  code: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  ip: string | null;
  country: string | null;
  /** The clear success token: only its SHA-256 is written. */
  token: string;
  ttlHours: number;
}

/** What `success_tokens.token_hash` holds for a token (DECISIONS §12: the token itself is never stored). */
export function successTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export interface RedeemedRow {
  id: string;
  awaiting_license: boolean;
  name: string;
  is_license_managed: boolean;
}

/** What the order e-mail of one redemption is made of. */
export interface MailRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  code: string;
  product_name: string;
  email_subject: string;
  email_template: string;
  product_key: string | null;
  product_link: string;
  license_key: string | null;
  license_link: string | null;
}

/**
 * The only code that touches `redemptions`, `customers` and `success_tokens` (the admin list's queries are in
 * redemption-list.repository.ts). Methods that take a `Db` run inside the caller's transaction.
 */
@Injectable()
export class RedemptionRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * REDEEM_SQL as a named statement: each pooled connection parses and plans it once (the hot path of the
   * service). No rows: the code is unknown, used or its product inactive (`redeemFailure` tells which).
   */
  async redeem(input: RedeemInput): Promise<RedeemedRow[]> {
    const values = [
      input.code,
      input.firstName,
      input.lastName,
      input.email,
      input.phone,
      input.ip,
      input.country,
      successTokenHash(input.token),
      input.ttlHours,
    ];
    const { rows } = await this.database.pool.query<RedeemedRow>({ name: 'redeem-voucher', text: REDEEM_SQL, values });
    return rows;
  }

  /** Only read on the failure path, so the happy path stays one round trip (reads voucher_codes and products). */
  async redeemFailure(code: string): Promise<{ isRedeemed: boolean; productStatus: string } | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT vc.is_redeemed, p.status FROM voucher_codes vc JOIN products p ON p.id = vc.product_id WHERE vc.code = $1`,
      [code],
    );
    return row && { isRedeemed: row.is_redeemed, productStatus: row.status };
  }

  /**
   * The success page's row: by the token's hash (uq_success_tokens_token_hash), the licence read live from the
   * latest assignment and opened here.
   */
  async successTokenView(token: string) {
    const [row] = await this.database.manager.query(
      `SELECT t.customer_email, t.product_name, r.awaiting_license, p.is_license_managed,
              p.product_key, p.download_link AS product_link, lk.license_key, lk.key_ciphertext,
              lk.download_link AS license_link
         FROM success_tokens t
         JOIN redemptions r ON r.id = t.redemption_id
         JOIN products p ON p.id = r.product_id
         LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true
        WHERE t.token_hash = $1 AND t.expires_at > now()`,
      [successTokenHash(token)],
    );
    if (row) row.license_key = openStoredKey(this.cipher, row);
    return row as
      | {
          customer_email: string;
          product_name: string;
          awaiting_license: boolean;
          is_license_managed: boolean;
          product_key: string | null;
          product_link: string | null;
          license_key: string | null;
          license_link: string | null;
        }
      | undefined;
  }

  // --- The order e-mail outbox (email_* columns), used by the mail module ---

  /** Claims a pending e-mail for `claimSeconds`; false when it is not due (sent, waiting for a key, claimed). */
  async claimEmail(id: string, claimSeconds: number): Promise<boolean> {
    const claimed = await queryRows(
      this.database.manager,
      `UPDATE redemptions
          SET email_locked_until = now() + make_interval(secs => $2),
              email_attempts = email_attempts + 1,
              email_last_attempt_at = now()
        WHERE id = $1 AND email_status = 'pending' AND NOT awaiting_license
          AND (email_locked_until IS NULL OR email_locked_until < now())
        RETURNING id`,
      [id, claimSeconds],
    );
    return claimed.length > 0;
  }

  async mailView(id: string): Promise<MailRow | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT r.id, c.email, c.first_name, c.last_name, v.code,
              p.name AS product_name, p.email_subject, p.email_template, p.product_key,
              p.download_link AS product_link, lk.license_key, lk.key_ciphertext, lk.download_link AS license_link
         FROM redemptions r
         JOIN customers c ON c.id = r.customer_id
         JOIN products p ON p.id = r.product_id
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true
        WHERE r.id = $1`,
      [id],
    );
    if (!row) return undefined;
    const { key_ciphertext, ...view } = row;
    return { ...view, license_key: openStoredKey(this.cipher, { license_key: row.license_key, key_ciphertext }) };
  }

  /** Ends a claim with the attempt's outcome. */
  async finishEmail(id: string, status: EmailStatus): Promise<void> {
    await this.database.manager.getRepository(Redemption).update({ id }, { emailStatus: status, emailLockedUntil: null });
  }

  /** Pending e-mails with no live claim whose last attempt is older than `olderThanMs` (idx_redemptions_pending_mail). */
  async findStalePending(olderThanMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT id FROM redemptions
        WHERE email_status = 'pending' AND NOT awaiting_license
          AND (email_locked_until IS NULL OR email_locked_until < now())
          AND coalesce(email_last_attempt_at, redeemed_at) < now() - make_interval(secs => $1)
        ORDER BY redeemed_at
        LIMIT $2`,
      [olderThanMs / 1000, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Every pending e-mail with no live claim, oldest first (Fix Pending Emails). */
  async findUnclaimedPending(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT id FROM redemptions
        WHERE email_status = 'pending' AND NOT awaiting_license
          AND (email_locked_until IS NULL OR email_locked_until < now())
        ORDER BY redeemed_at`,
    );
    return rows.map((r) => r.id);
  }

  /** Makes a redemption's e-mail due again (stale claim cleared); undefined when it waits for a key or is unknown. */
  async requeueEmail(id: string): Promise<{ code: string } | undefined> {
    const [row] = returnedRows<{ code: string }>(
      await this.database.manager.query(
        `UPDATE redemptions r SET email_status = 'pending', email_locked_until = NULL
          FROM voucher_codes v
         WHERE r.id = $1 AND NOT r.awaiting_license AND v.id = r.voucher_code_id
         RETURNING v.code`,
        [id],
      ),
    );
    return row;
  }

  async exists(id: string): Promise<boolean> {
    return this.database.manager.getRepository(Redemption).exists({ where: { id } });
  }

  // --- Licence state ---

  /** Locks a redemption that waits for a key (undefined when it does not): two fixers never assign two keys. */
  async lockAwaiting(db: Db, id: string): Promise<{ productId: string } | undefined> {
    const [row] = await db.query(`SELECT id, product_id FROM redemptions WHERE id = $1 AND awaiting_license FOR UPDATE`, [
      id,
    ]);
    return row && { productId: row.product_id };
  }

  /** A pool key was assigned: manual processing ends (the e-mail stays pending and is queued by the caller). */
  async clearAwaiting(db: Db, id: string): Promise<void> {
    await db.getRepository(Redemption).update({ id }, { awaitingLicense: false });
  }

  /** Locks one redemption for a manual assignment, with what the rules need of its product and code. */
  async lockForAssignment(
    db: Db,
    id: string,
  ): Promise<{ productId: string; productName: string; isLicenseManaged: boolean; code: string } | undefined> {
    const [r] = await db.query(
      `SELECT r.id, r.product_id, p.name, p.is_license_managed, v.code
         FROM redemptions r JOIN products p ON p.id = r.product_id JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE r.id = $1 FOR UPDATE OF r`,
      [id],
    );
    return r && { productId: r.product_id, productName: r.name, isLicenseManaged: r.is_license_managed, code: r.code };
  }

  /**
   * Locks the redemptions (in a fixed order: no deadlock between overlapping bulk requests), then answers, with
   * a fresh statement that sees every assignment committed while this one waited, those of licence-managed
   * products without any key, by product.
   */
  async lockLicensableWithoutKey(db: Db, ids: string[]): Promise<Array<{ id: string; productId: string }>> {
    await db.query(`SELECT id FROM redemptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
    const rows: Array<{ id: string; product_id: string }> = await db.query(
      `SELECT r.id, r.product_id FROM redemptions r JOIN products p ON p.id = r.product_id
        WHERE r.id = ANY($1::uuid[]) AND p.is_license_managed
          AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.redemption_id = r.id)
        ORDER BY r.product_id, r.id`,
      [ids],
    );
    return rows.map((r) => ({ id: r.id, productId: r.product_id }));
  }

  /** A licence now exists: the redemptions leave manual processing and their e-mail is due. */
  async markLicensed(db: Db, ids: string[]): Promise<void> {
    await db
      .getRepository(Redemption)
      .update({ id: In(ids) }, { awaitingLicense: false, emailStatus: 'pending', emailLockedUntil: null });
  }

  /** Redemptions waiting for a key whose product has a free one, oldest first. */
  async findWaitingWithFreeKey(): Promise<Array<{ id: string; productId: string }>> {
    const rows: Array<{ id: string; product_id: string }> = await this.database.manager.query(
      `SELECT r.id, r.product_id FROM redemptions r
        WHERE r.awaiting_license AND EXISTS (
          SELECT 1 FROM license_keys k WHERE k.product_id = r.product_id AND k.is_active AND k.current_activations < k.max_activations)
        ORDER BY r.redeemed_at, r.id`,
    );
    return rows.map((r) => ({ id: r.id, productId: r.product_id }));
  }

  // --- Deletion ---

  /** The voucher code stays redeemed; the licence assignment stays (its redemption_id set null by the FK). */
  async delete(id: string): Promise<{ code: string } | undefined> {
    const [row] = await this.database.manager.query(
      `WITH d AS (DELETE FROM redemptions WHERE id = $1 RETURNING id, voucher_code_id)
       SELECT d.id, v.code FROM d JOIN voucher_codes v ON v.id = d.voucher_code_id`,
      [id],
    );
    return row && { code: row.code };
  }

  async deleteMany(ids: string[]): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `WITH d AS (DELETE FROM redemptions WHERE id = ANY($1::uuid[]) RETURNING id) SELECT id FROM d`,
      [ids],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Clean System: every voucher code, customer, redemption, success token and licence assignment (licence keys
   * stay, with their activation counts). Spans the voucher and licence tables because it must be one locked
   * transaction: no redemption can slip in between the counts and the truncate.
   */
  async truncateAll(db: Db) {
    await db.query(
      `LOCK TABLE voucher_codes, customers, redemptions, license_assignments, success_tokens IN ACCESS EXCLUSIVE MODE`,
    );
    const [counts] = await db.query(
      `SELECT (SELECT count(*) FROM voucher_codes)::int AS voucher_codes,
              (SELECT count(*) FROM customers)::int AS customers,
              (SELECT count(*) FROM redemptions)::int AS redemptions,
              (SELECT count(*) FROM license_assignments)::int AS license_assignments`,
    );
    await db.query(`TRUNCATE license_assignments, success_tokens, redemptions, customers, voucher_codes`);
    return {
      voucherCodes: counts.voucher_codes as number,
      customers: counts.customers as number,
      redemptions: counts.redemptions as number,
      licenseAssignments: counts.license_assignments as number,
    };
  }
}
