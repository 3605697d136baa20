import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';

export interface HeldRedemption {
  redemptionId: string;
  voucherCode: string;
  productName: string;
  customerEmail: string;
  heldAt: Date;
  rules: Array<{ rule: string; evidence: Record<string, unknown> }>;
}

/** A held redemption as a decision leaves it. */
export interface DecidedRedemption {
  id: string;
  productId: string;
  voucherCode: string;
  productName: string;
  customerEmail: string;
  phone: string | null;
  ipAddress: string | null;
  isLicenseManaged: boolean;
}

const DECIDED = `r.id, r.product_id AS "productId", v.code AS "voucherCode", p.name AS "productName", c.email AS "customerEmail", r.phone,
                 r.ip_address AS "ipAddress", p.is_license_managed AS "isLicenseManaged"`;

/** A case waiting past the two-hour promise, as its alert names it. */
export interface OverdueReview {
  id: string;
  voucherCode: string;
  productName: string;
  customerEmail: string;
  heldAt: Date;
}

/** Another redemption of a held one's e-mail, address or phone (docs/product.md §25.3). */
export interface RelatedRedemption {
  redemptionId: string;
  voucherCode: string;
  productName: string;
  redeemedAt: Date;
  /** Held for review, and not refused. */
  held: boolean;
}

/** A held case's evidence: the other redemptions of its e-mail, address and phone, and its address's country. */
export interface ReviewEvidence {
  redemptionId: string;
  ipAddress: string | null;
  phone: string | null;
  addressCountry: string | null;
  sameEmail: RelatedRedemption[];
  sameAddress: RelatedRedemption[];
  samePhone: RelatedRedemption[];
}

/** At most this many related redemptions of each kind; the address's and phone's within this window of the case. */
export const EVIDENCE_LIMIT = 20;
const EVIDENCE_WINDOW = `interval '24 hours'`;

/** What the refusal e-mail needs (docs/product.md §25.3). */
export interface RefusalMail {
  customerEmail: string;
  productName: string;
  voucherCode: string;
}

/**
 * The review queue's side of `redemptions` (docs/product.md §25): the held ones by `idx_redemptions_held` (only held
 * and refused ones are in it), and the two decisions, each a conditional UPDATE of a still-held row (two reviewers:
 * the first decides, the second finds the decision: `decision`).
 */
@Injectable()
export class RedemptionReviewRepository {
  constructor(private readonly database: DatabaseService) {}

  async held(limit: number, offset: number): Promise<{ items: HeldRedemption[]; total: number }> {
    const items: HeldRedemption[] = await this.database.manager.query(
      `SELECT r.id AS "redemptionId", v.code AS "voucherCode", p.name AS "productName", c.email AS "customerEmail",
              r.held_at AS "heldAt", coalesce(r.held_rules, '[]') AS rules
         FROM redemptions r
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id
         JOIN customers c ON c.id = r.customer_id
        WHERE r.held_at IS NOT NULL AND r.refunded_at IS NULL
        ORDER BY r.held_at, r.id LIMIT $1 OFFSET $2`,
      [limit, offset],
    );
    return { items, total: await this.heldCount() };
  }

  /** Redemptions waiting for a decision (`redemptions_held`): the partial index holds only held and refused ones. */
  async heldCount(): Promise<number> {
    const [{ total }] = await this.database.manager.query(
      `SELECT count(*)::int AS total FROM redemptions WHERE held_at IS NOT NULL AND refunded_at IS NULL`,
    );
    return total;
  }

  /** Approve: no longer held; a licence-managed product's redemption now waits for a key (the pool or backorder). */
  async approve(id: string): Promise<DecidedRedemption | undefined> {
    const [row] = await queryRows<DecidedRedemption>(
      this.database.current,
      `WITH d AS (
         UPDATE redemptions r SET held_at = NULL, awaiting_license = p.is_license_managed, reviewed_at = now(),
                review_decision = 'approved'
           FROM products p WHERE r.id = $1 AND r.held_at IS NOT NULL AND r.refunded_at IS NULL AND p.id = r.product_id
         RETURNING r.*
       )
       SELECT ${DECIDED} FROM d r JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id JOIN customers c ON c.id = r.customer_id`,
      [id],
    );
    return row;
  }

  /**
   * Refuse: its code refunded (the state of a code voided after redemption, docs/product.md §19.3) and `held_at`
   * kept, so no key is ever assigned to it, no order e-mail goes out and the code redeems nothing again.
   */
  async refuse(id: string): Promise<DecidedRedemption | undefined> {
    const [row] = await queryRows<DecidedRedemption>(
      this.database.current,
      `WITH d AS (
         UPDATE redemptions r SET refunded_at = now(), reviewed_at = now(), review_decision = 'refused',
                review_mail_status = 'pending'
          WHERE r.id = $1 AND r.held_at IS NOT NULL AND r.refunded_at IS NULL
         RETURNING r.*
       )
       SELECT ${DECIDED} FROM d r JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id JOIN customers c ON c.id = r.customer_id`,
      [id],
    );
    return row;
  }

  /** How staff decided a redemption that was held (undefined: no such redemption, or it was never decided). */
  async decision(id: string): Promise<'approved' | 'refused' | undefined> {
    const [row] = await queryRows<{ decision: 'approved' | 'refused' | null }>(
      this.database.current,
      `SELECT review_decision AS decision FROM redemptions WHERE id = $1`,
      [id],
    );
    return row?.decision ?? undefined;
  }

  /** A refused redemption's refusal e-mail; none once the customer's data was erased. */
  async refusalMail(id: string): Promise<RefusalMail | undefined> {
    const [row] = await queryRows<RefusalMail>(
      this.database.current,
      `SELECT c.email AS "customerEmail", p.name AS "productName", v.code AS "voucherCode"
         FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id JOIN customers c ON c.id = r.customer_id
        WHERE r.id = $1 AND r.review_decision = 'refused' AND r.review_mail_status = 'pending' AND r.erased_at IS NULL`,
      [id],
    );
    return row;
  }

  /** The refusal e-mail's outcome: sent, finally failed, or still pending (a retry follows). */
  async finishRefusalMail(id: string, status: 'sent' | 'failed' | 'pending'): Promise<void> {
    await this.database.current.query(
      `UPDATE redemptions SET review_mail_status = $2 WHERE id = $1 AND review_mail_status = 'pending'`,
      [id, status],
    );
  }

  /**
   * Refusal e-mails still pending a while after the decision (their job was lost): through `idx_redemptions_held`,
   * which holds only held and refused redemptions.
   */
  async stalePendingRefusals(olderThanMs: number, limit = 500): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.database.current,
      `SELECT id FROM redemptions
        WHERE held_at IS NOT NULL AND review_mail_status = 'pending'
          AND reviewed_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY held_at, id LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Claims the cases held since `heldBefore` or earlier that were not alerted yet (docs/product.md §25.4), oldest
   * first: one UPDATE, so two processes running the check never alert one case twice. Reads `idx_redemptions_held`.
   */
  claimOverdue(heldBefore: Date, limit = 100): Promise<OverdueReview[]> {
    return queryRows<OverdueReview>(
      this.database.current,
      `WITH d AS (
         UPDATE redemptions r SET review_alerted_at = now()
          WHERE r.id IN (SELECT id FROM redemptions
                          WHERE held_at IS NOT NULL AND held_at <= $1 AND refunded_at IS NULL
                            AND review_alerted_at IS NULL
                          ORDER BY held_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING r.*
       )
       SELECT r.id, v.code AS "voucherCode", p.name AS "productName", c.email AS "customerEmail", r.held_at AS "heldAt"
         FROM d r JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN products p ON p.id = r.product_id JOIN customers c ON c.id = r.customer_id
        ORDER BY r.held_at, r.id`,
      [heldBefore, limit],
    );
  }

  /** The alert could not be sent to anyone: the cases are claimed again by a later check. */
  async unclaimOverdue(ids: string[]): Promise<void> {
    await this.database.current.query(`UPDATE redemptions SET review_alerted_at = NULL WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
  }

  /**
   * A held case's evidence in one statement: the e-mail's other redemptions through the customer
   * (`uq_redemptions_customer_product` leads with it), the address's and the phone's within 24 hours either side of
   * the case, read through the time-ordered list index (`idx_redemptions_list`), never the whole table. Undefined:
   * no such held redemption.
   */
  async evidence(id: string): Promise<ReviewEvidence | undefined> {
    const rows = await queryRows<
      RelatedRedemption & {
        kind: string;
        ipAddress: string | null;
        phone: string | null;
        addressCountry: string | null;
      }
    >(
      this.database.current,
      `WITH h AS (
         SELECT id, customer_id, ip_address, phone, country, redeemed_at FROM redemptions
          WHERE id = $1 AND held_at IS NOT NULL AND refunded_at IS NULL
       ), related AS (
         (SELECT 'email' AS kind, o.* FROM h JOIN redemptions o ON o.customer_id = h.customer_id AND o.id <> h.id
           ORDER BY o.redeemed_at DESC LIMIT $2)
         UNION ALL
         (SELECT 'address', o.* FROM h JOIN redemptions o ON o.exported IN (false, true)
             AND o.redeemed_at BETWEEN h.redeemed_at - ${EVIDENCE_WINDOW} AND h.redeemed_at + ${EVIDENCE_WINDOW}
             AND o.ip_address = h.ip_address AND o.id <> h.id
           ORDER BY o.redeemed_at DESC LIMIT $2)
         UNION ALL
         (SELECT 'phone', o.* FROM h JOIN redemptions o ON o.exported IN (false, true)
             AND o.redeemed_at BETWEEN h.redeemed_at - ${EVIDENCE_WINDOW} AND h.redeemed_at + ${EVIDENCE_WINDOW}
             AND o.phone = h.phone AND o.id <> h.id
           ORDER BY o.redeemed_at DESC LIMIT $2)
       )
       SELECT NULL AS kind, h.id AS "redemptionId", h.ip_address AS "ipAddress", h.phone, h.country AS "addressCountry",
              NULL AS "voucherCode", NULL AS "productName", NULL::timestamptz AS "redeemedAt", NULL::boolean AS held
         FROM h
       UNION ALL
       SELECT x.kind, x.id, NULL, NULL, NULL, v.code, p.name, x.redeemed_at,
              x.held_at IS NOT NULL AND x.refunded_at IS NULL
         FROM related x JOIN voucher_codes v ON v.id = x.voucher_code_id JOIN products p ON p.id = x.product_id`,
      [id, EVIDENCE_LIMIT],
    );
    const head = rows.find((r) => r.kind === null);
    if (!head) return undefined;
    const of = (kind: string) =>
      rows
        .filter((r) => r.kind === kind)
        .map(({ redemptionId, voucherCode, productName, redeemedAt, held }) => ({
          redemptionId,
          voucherCode,
          productName,
          redeemedAt,
          held,
        }));
    return {
      redemptionId: head.redemptionId,
      ipAddress: head.ipAddress,
      phone: head.phone,
      addressCountry: head.addressCountry,
      sameEmail: of('email'),
      sameAddress: head.ipAddress ? of('address') : [],
      samePhone: head.phone ? of('phone') : [],
    };
  }
}
