import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { redemptionCountsCtes } from '../../common/utils/counters-sql';
import { returnedRows } from '../../common/utils/sql';
import { latestLicenseKeySql, openStoredKey } from '../license/license.repository';
import { releasedCodesCte } from '../voucher/code-status.sql';
import { Redemption } from './entities/redemption.entity';
import {
  idempotencyKeyHash,
  REDEEM_AGAIN_SQL,
  REDEEM_SQL,
  RedeemAgainRow,
  RedeemedRow,
  RedeemInput,
  successTokenHash,
} from './redeem.statement';

export { idempotencyKeyHash, REDEEM_AGAIN_SQL, REDEEM_SQL, successTokenHash };
export type { RedeemAgainRow, RedeemedRow, RedeemInput };

/** How long Clean System waits for each table's lock before it gives up and tries again (truncateAll). */
const CLEANUP_LOCK_TIMEOUT = '200ms';

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
   * REDEEM_SQL as a named statement on the redemption's pipeline (DatabaseService.pipelined): each connection parses
   * and plans it once (the hot path of the service). No rows: the code is unknown, used, void or its product inactive
   * (`redeemAgain` tells which, and answers a repeated submission of the same redemption).
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
      idempotencyKeyHash(input.idempotencyKey),
      input.heldRules !== null,
      input.heldRules && JSON.stringify(input.heldRules),
    ];
    const { rows } = await this.database.pipelined<RedeemedRow>({ name: 'redeem-voucher', text: REDEEM_SQL, values });
    return rows;
  }

  /**
   * The second statement of a redemption, run only when REDEEM_SQL claimed nothing (so the happy path stays one
   * round trip): why the code was not redeemable and, when it was redeemed by the same (lower-cased) e-mail with the
   * same Idempotency-Key less than `ttlHours` before `now` and not refunded since, a fresh success token for that
   * same redemption (docs/product.md §19.1: only the token's hash is written, nothing else). Code and
   * e-mail alone are no proof (staff see both): without the key no token is written. Reads voucher_codes, products
   * and customers with the redemption, in the owner's statement like REDEEM_SQL.
   */
  async redeemAgain(input: {
    code: string;
    email: string;
    token: string;
    ttlHours: number;
    now: Date;
    idempotencyKey: string | null;
  }): Promise<RedeemAgainRow | undefined> {
    const [row] = await this.database.manager.query(REDEEM_AGAIN_SQL, [
      input.code,
      input.email,
      input.now,
      successTokenHash(input.token),
      input.ttlHours,
      idempotencyKeyHash(input.idempotencyKey),
    ]);
    return row;
  }

  /**
   * The success page's row: by the token's hash (uq_success_tokens_token_hash), the licence read live from the
   * latest assignment and opened here.
   */
  async successTokenView(token: string) {
    const [row] = await this.database.manager.query(
      `SELECT t.customer_email, t.product_name, v.code AS voucher_code,
              r.awaiting_license OR r.held_at IS NOT NULL AS awaiting_license, r.refunded_at IS NOT NULL AS refunded,
              r.review_decision = 'refused' AS refused_in_review,
              p.is_license_managed,
              p.product_key, p.product_key_ciphertext, p.download_link AS product_link, lk.license_key,
              lk.key_ciphertext, lk.download_link AS license_link
         FROM success_tokens t
         JOIN redemptions r ON r.id = t.redemption_id
         JOIN products p ON p.id = r.product_id
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true
        WHERE t.token_hash = $1 AND t.expires_at > now()`,
      [successTokenHash(token)],
    );
    if (row) {
      row.license_key = openStoredKey(this.cipher, row);
      row.product_key = this.openProductKey(row);
    }
    return row as
      | {
          customer_email: string;
          product_name: string;
          voucher_code: string;
          awaiting_license: boolean;
          refunded: boolean;
          refused_in_review: boolean;
          is_license_managed: boolean;
          product_key: string | null;
          product_link: string | null;
          license_key: string | null;
          license_link: string | null;
        }
      | undefined;
  }

  /** A product's shared key from `products` columns read in this repository's joins (sealed, or clear until sealed). */
  private openProductKey(row: { product_key: string | null; product_key_ciphertext: Buffer | null }): string | null {
    return row.product_key_ciphertext ? this.cipher.open(row.product_key_ciphertext) : row.product_key;
  }

  // --- The order e-mail outbox (email_* columns): the mail module's claim, outcome and sweep are in
  // redemption-mail-outbox.repository.ts; Fix Pending Emails and the resends make e-mails due again here. ---

  /**
   * Every pending e-mail with no live claim, oldest first (Fix Pending Emails): the pending ranges of
   * idx_redemptions_status_list (exported, email_status, …), one per `exported` value.
   */
  async findUnclaimedPending(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT id FROM redemptions
        WHERE exported IN (false, true) AND email_status = 'pending' AND NOT awaiting_license AND erased_at IS NULL
          AND (email_locked_until IS NULL OR email_locked_until < now())
        ORDER BY redeemed_at`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Makes a redemption's e-mail due again (stale claim cleared); undefined when it waits for a key or is unknown. An
   * e-mail that was sent or failed becomes a new message (`email_resends` + 1: a new Message-ID); one still pending
   * stays the message it was.
   */
  async requeueEmail(id: string): Promise<{ code: string } | undefined> {
    const [row] = returnedRows<{ code: string }>(
      await this.database.manager.query(
        `UPDATE redemptions r SET email_status = 'pending', email_locked_until = NULL,
                email_resends = r.email_resends + CASE WHEN r.email_status = 'pending' THEN 0 ELSE 1 END
          FROM voucher_codes v
         WHERE r.id = $1 AND NOT r.awaiting_license AND r.held_at IS NULL AND r.erased_at IS NULL
           AND v.id = r.voucher_code_id
         RETURNING v.code`,
        [id],
      ),
    );
    return row;
  }

  /**
   * The customer's resend request (docs/product.md §19.2): whether the code exists, and the redemption it belongs to when
   * that was made with this (lower-cased) e-mail. `hasLicence`: the customer has something to receive (not waiting
   * for a key); `refunded`: the code was refunded after redemption. Reads voucher_codes and customers with it.
   */
  async findForCustomerResend(
    code: string,
    email: string,
  ): Promise<{ redemptionId: string | null; hasLicence: boolean; refunded: boolean } | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT r.id, r.awaiting_license, r.held_at, r.refunded_at
         FROM voucher_codes v
         LEFT JOIN redemptions r ON r.voucher_code_id = v.id
                                AND r.customer_id = (SELECT id FROM customers WHERE email = $2)
        WHERE v.code = $1`,
      [code, email],
    );
    if (!row) return undefined;
    return {
      redemptionId: row.id,
      // Held for review: nothing to receive until approved (docs/product.md §25.2), no resend counted.
      hasLicence: row.id !== null && !row.awaiting_license && row.held_at === null,
      refunded: row.refunded_at !== null,
    };
  }

  /** A redemption's resend state by id (the licence centre's resend; the caller checked whose it is). */
  async resendStateOf(id: string): Promise<{ hasLicence: boolean; refunded: boolean } | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT awaiting_license, held_at, refunded_at FROM redemptions WHERE id = $1`,
      [id],
    );
    return row && { hasLicence: !row.awaiting_license && row.held_at === null, refunded: row.refunded_at !== null };
  }

  /**
   * Marks the redemptions of these (redeemed) codes refunded, keeping an earlier refund's time; their keys stay
   * assigned (docs/product.md §19.3). Runs on the void's held client, inside its transaction (one statement for all
   * codes).
   */
  async markRefunded(voucherCodeIds: string[]): Promise<void> {
    if (!voucherCodeIds.length) return;
    await this.database.client.query(
      // Locked in id order, as every statement that locks several redemptions (exports, bulk delete): no deadlock.
      `UPDATE redemptions SET refunded_at = coalesce(refunded_at, now())
        WHERE id IN (SELECT id FROM redemptions WHERE voucher_code_id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE)`,
      [voucherCodeIds],
    );
  }

  /** Whether a code of that text exists (the unique index on `code`): a refused redemption counts as a guess if not. */
  async codeKnown(code: string): Promise<boolean> {
    const rows = await this.database.manager.query(`SELECT 1 FROM voucher_codes WHERE code = $1`, [code]);
    return rows.length > 0;
  }

  /** Whether a redemption was ever held for review (waiting, or refused): undefined when there is none. */
  async heldForReview(id: string): Promise<boolean | undefined> {
    const row = await this.database.manager
      .getRepository(Redemption)
      .findOne({ where: { id }, select: { id: true, heldAt: true } });
    return row ? row.heldAt !== null : undefined;
  }

  // --- Licence state ---

  /** Locks a redemption that waits for a key (undefined when it does not): two fixers never assign two keys. */
  async lockAwaiting(id: string): Promise<{ productId: string } | undefined> {
    const db = this.database.current;
    const [row] = await db.query(
      `SELECT id, product_id FROM redemptions WHERE id = $1 AND awaiting_license FOR NO KEY UPDATE`,
      [id],
    );
    return row && { productId: row.product_id };
  }

  /** A pool key was assigned: manual processing ends (the e-mail stays pending and is queued by the caller). */
  async clearAwaiting(id: string): Promise<void> {
    const db = this.database.current;
    await db.getRepository(Redemption).update({ id }, { awaitingLicense: false });
  }

  /** Locks one redemption for a manual assignment, with what the rules need of its product and code. */
  async lockForAssignment(
    id: string,
  ): Promise<
    { productId: string; productName: string; isLicenseManaged: boolean; code: string; held: boolean } | undefined
  > {
    const db = this.database.current;
    const [r] = await db.query(
      `SELECT r.id, r.product_id, p.name, p.is_license_managed, v.code, r.held_at IS NOT NULL AS held
         FROM redemptions r JOIN products p ON p.id = r.product_id JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE r.id = $1 FOR NO KEY UPDATE OF r`,
      [id],
    );
    return (
      r && {
        productId: r.product_id,
        productName: r.name,
        isLicenseManaged: r.is_license_managed,
        code: r.code,
        held: r.held,
      }
    );
  }

  /**
   * Locks the redemptions (in a fixed order: no deadlock between overlapping bulk requests), then answers, with
   * a fresh statement that sees every assignment committed while this one waited, those of licence-managed
   * products without any key, by product.
   */
  async lockLicensableWithoutKey(ids: string[]): Promise<Array<{ id: string; productId: string }>> {
    const db = this.database.current;
    await db.query(`SELECT id FROM redemptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, [ids]);
    const rows: Array<{ id: string; product_id: string }> = await db.query(
      `SELECT r.id, r.product_id FROM redemptions r JOIN products p ON p.id = r.product_id
        WHERE r.id = ANY($1::uuid[]) AND p.is_license_managed AND r.held_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.redemption_id = r.id)
        ORDER BY r.product_id, r.id`,
      [ids],
    );
    return rows.map((r) => ({ id: r.id, productId: r.product_id }));
  }

  /** A licence now exists: the redemptions leave manual processing and their e-mail is due. */
  async markLicensed(ids: string[]): Promise<void> {
    const db = this.database.current;
    await db
      .getRepository(Redemption)
      .update({ id: In(ids) }, { awaitingLicense: false, emailStatus: 'pending', emailLockedUntil: null });
  }

  /** Redemptions waiting for a key whose product (of `productIds`, else any) has a free one, oldest first. */
  async findWaitingWithFreeKey(productIds?: string[]): Promise<Array<{ id: string; productId: string }>> {
    const rows: Array<{ id: string; product_id: string }> = await this.database.manager.query(
      `SELECT r.id, r.product_id FROM redemptions r
        WHERE r.awaiting_license ${productIds ? 'AND r.product_id = ANY($1::uuid[])' : ''} AND EXISTS (
          SELECT 1 FROM license_keys k WHERE k.product_id = r.product_id AND k.is_active AND k.current_activations < k.max_activations)
        ORDER BY r.redeemed_at, r.id`,
      productIds ? [productIds] : [],
    );
    return rows.map((r) => ({ id: r.id, productId: r.product_id }));
  }

  // --- Deletion ---

  /**
   * The voucher code stays redeemed (listed from `released_codes` now, `releasedCodesCte`); the licence assignment
   * stays (its redemption_id set null by the FK). The statement takes the redemption off its counters
   * (`redemptionCountsCtes`: product, batch, exported, day).
   */
  async delete(id: string): Promise<{ code: string } | undefined> {
    const [row] = await this.database.manager.query(
      `WITH d AS (DELETE FROM redemptions WHERE id = $1 RETURNING id, product_id, voucher_code_id, redeemed_at, exported)
       ${redemptionCountsCtes('d', -1)} ${releasedCodesCte('d')}
       SELECT d.id, v.code FROM d JOIN voucher_codes v ON v.id = d.voucher_code_id`,
      [id],
    );
    return row && { code: row.code };
  }

  async deleteMany(ids: string[]): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      // Locked in id order, as every statement that locks several redemptions (exports, refunds): no deadlock.
      `WITH d AS (DELETE FROM redemptions WHERE id IN (SELECT id FROM redemptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE)
                  RETURNING id, product_id, voucher_code_id, redeemed_at, exported)
       ${redemptionCountsCtes('d', -1)} ${releasedCodesCte('d')}
       SELECT id FROM d`,
      [ids],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Clean System: every voucher code, customer, redemption, success token and licence assignment (licence keys
   * stay, with their activation counts). Spans the voucher and licence tables because it must be one locked
   * transaction: no redemption can slip in between the counts and the truncate. Resets the code and redemption
   * counters (product and stats modules' tables) in the same transaction.
   */
  async truncateAll() {
    const db = this.database.current;
    // The tables are locked one after the other, and a statement already holding one of them (a redemption's
    // delete joins voucher_codes after locking redemptions) would deadlock with this: waiting at most
    // CLEANUP_LOCK_TIMEOUT (under deadlock_timeout), this gives up instead (55P03, the caller tries again) and the
    // other statement goes on.
    await db.query(`SET LOCAL lock_timeout = '${CLEANUP_LOCK_TIMEOUT}'`);
    await db.query(
      `LOCK TABLE voucher_codes, released_codes, available_codes, customers, redemptions, license_assignments, success_tokens IN ACCESS EXCLUSIVE MODE`,
    );
    await db.query(`SET LOCAL lock_timeout TO DEFAULT`);
    const [counts] = await db.query(
      `SELECT (SELECT count(*) FROM voucher_codes)::int AS voucher_codes,
              (SELECT count(*) FROM customers)::int AS customers,
              (SELECT count(*) FROM redemptions)::int AS redemptions,
              (SELECT count(*) FROM license_assignments)::int AS license_assignments`,
    );
    await db.query(
      `TRUNCATE license_assignments, success_tokens, redemptions, customers, released_codes, available_codes, voucher_codes`,
    );
    // Counts itself: no code and no redemption is left to count (the tables are still locked, so no writer of these
    // counters runs meanwhile; `license_key_counts` stays, as the keys do).
    await db.query(`UPDATE product_counts SET available = 0, redeemed = 0, void = 0, redemptions = 0, exported = 0`);
    await db.query(`DELETE FROM redemption_day_counts`);
    return {
      voucherCodes: counts.voucher_codes as number,
      customers: counts.customers as number,
      redemptions: counts.redemptions as number,
      licenseAssignments: counts.license_assignments as number,
    };
  }
}
