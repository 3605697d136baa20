import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';

/** What a redemption's own row tells its history (docs/product.md §20.3). */
export interface RedemptionFacts {
  id: string;
  code: string;
  /** Null once the customer erased their personal data. */
  customerEmail: string | null;
  productId: string;
  isLicenseManaged: boolean;
  awaitingLicense: boolean;
  redeemedAt: Date;
  exportedAt: Date | null;
  refundedAt: Date | null;
}

/** Reads of `redemptions` for the pool forecast and a redemption's history. */
@Injectable()
export class RedemptionActivityRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Redemptions per product since `since` (all products, or those given): the pool forecast's demand.
   * The one place that counts them: issue 12's per-product-per-day counters can answer it instead (a sum over
   * seven days of `product_day_counts`) without the forecast changing. Today idx_redemptions_product_redeemed
   * (product_id, redeemed_at) with products; without, idx_redemptions_list (exported, redeemed_at DESC, id), one range
   * per `exported` value.
   */
  async redeemedPerProductSince(since: Date, productIds?: string[]): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = productIds
      ? await this.database.manager.query(
          `SELECT product_id, count(*)::int AS n FROM redemptions
            WHERE product_id = ANY($2::uuid[]) AND redeemed_at >= $1 GROUP BY product_id`,
          [since, productIds],
        )
      : await this.database.manager.query(
          `SELECT product_id, count(*)::int AS n FROM redemptions
            WHERE exported IN (false, true) AND redeemed_at >= $1 GROUP BY product_id`,
          [since],
        );
    return new Map(rows.map((r) => [r.product_id, r.n]));
  }

  /** Redemptions waiting for a licence key, per product given (idx_redemptions_awaiting_product); none: absent. */
  async waitingPerProduct(productIds: string[]): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = await this.database.manager.query(
      `SELECT product_id, count(*)::int AS n FROM redemptions
        WHERE awaiting_license AND product_id = ANY($1::uuid[]) GROUP BY product_id`,
      [productIds],
    );
    return new Map(rows.map((r) => [r.product_id, r.n]));
  }

  /**
   * Redemptions of these products at or after `since`, oldest first, at most `limit` (the marketplace reports' sweep:
   * one range of idx_redemptions_product_redeemed per product). Joins the code (the voucher module's table).
   */
  async redeemedSince(
    productIds: string[],
    since: Date,
    limit: number,
  ): Promise<Array<{ id: string; code: string; productId: string; redeemedAt: Date }>> {
    return this.database.manager.query(
      `SELECT r.id, v.code, r.product_id AS "productId", r.redeemed_at AS "redeemedAt"
         FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE r.product_id = ANY($1::uuid[]) AND r.redeemed_at >= $2
        ORDER BY r.redeemed_at LIMIT $3`,
      [productIds, since, limit],
    );
  }

  /**
   * One redemption's own facts. Joins its code, customer and product (the voucher and product modules' tables) in
   * the owner's statement, as the list's view does.
   */
  async facts(id: string): Promise<RedemptionFacts | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT r.id, v.code, c.email AS customer_email, r.product_id, p.is_license_managed, r.awaiting_license,
              r.redeemed_at, r.exported_at, r.refunded_at
         FROM redemptions r
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         JOIN customers c ON c.id = r.customer_id
         JOIN products p ON p.id = r.product_id
        WHERE r.id = $1`,
      [id],
    );
    return (
      row && {
        id: row.id,
        code: row.code,
        customerEmail: row.customer_email,
        productId: row.product_id,
        isLicenseManaged: row.is_license_managed,
        awaitingLicense: row.awaiting_license,
        redeemedAt: row.redeemed_at,
        exportedAt: row.exported_at,
        refundedAt: row.refunded_at,
      }
    );
  }
}
