import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { queryRows, resealColumn } from '../../database/query-rows';
import type { AdapterKind, OnUnreachable } from './entities/marketplace-connection.entity';

export interface ConnectionSettings {
  name: string;
  baseUrl: string;
  checkAtRedeem: boolean;
  reportRedemptions: boolean;
  onUnreachable: OnUnreachable;
  pullIntervalSeconds: number;
}

export interface ConnectedProduct {
  productId: string;
  externalRef: string;
}

export interface ConnectionView extends ConnectionSettings {
  id: string;
  adapter: AdapterKind;
  products: ConnectedProduct[];
  lastEventAt: Date | null;
  lastPullAt: Date | null;
  lastPullError: string | null;
  createdAt: Date;
}

/** What the redeem check and the reports need of a connected product, its connection's secret opened. */
export interface ProductLink {
  adapter: AdapterKind;
  productId: string;
  externalRef: string;
  connectionId: string;
  baseUrl: string;
  secret: string;
  checkAtRedeem: boolean;
  reportRedemptions: boolean;
  onUnreachable: OnUnreachable;
  /** When the connection was made: redemptions before it are never reported. */
  createdAt: Date;
}

/** A connection whose pull is due: its URL, opened secret and cursor. */
export interface DuePull {
  id: string;
  adapter: AdapterKind;
  baseUrl: string;
  secret: string;
  cursor: string | null;
  pullIntervalSeconds: number;
}

const CONNECTION_COLUMNS = `c.id, c.adapter, c.name, c.base_url AS "baseUrl", c.check_at_redeem AS "checkAtRedeem",
  c.report_redemptions AS "reportRedemptions", c.on_unreachable AS "onUnreachable",
  c.pull_interval_seconds AS "pullIntervalSeconds", c.last_event_at AS "lastEventAt", c.last_pull_at AS "lastPullAt",
  c.last_pull_error AS "lastPullError", c.created_at AS "createdAt",
  coalesce((SELECT json_agg(json_build_object('productId', p.product_id, 'externalRef', p.external_ref)
                             ORDER BY p.external_ref)
              FROM marketplace_products p WHERE p.connection_id = c.id), '[]'::json) AS products`;

/**
 * The only code that touches `marketplace_connections`, `marketplace_products` and `marketplace_events`. Secrets
 * are sealed here on the way in and opened here only to sign or verify (the same `DataCipher` as licence keys).
 */
@Injectable()
export class MarketplaceRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /** The connection and its products in one transaction (a product already served elsewhere: 23505). */
  async create(
    s: ConnectionSettings,
    secret: string,
    products: ConnectedProduct[],
    redemptions: Map<string, number>,
    adapter: AdapterKind = 'generic',
  ): Promise<ConnectionView> {
    return this.database.transaction(async (db) => {
      const [{ id }] = await queryRows<{ id: string }>(
        db,
        `INSERT INTO marketplace_connections (name, base_url, secret_ciphertext, check_at_redeem, report_redemptions,
                                              on_unreachable, pull_interval_seconds, next_pull_at, adapter)
         VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 > 0 THEN now() END, $8) RETURNING id`,
        [
          s.name,
          s.baseUrl,
          this.cipher.seal(secret),
          s.checkAtRedeem,
          s.reportRedemptions,
          s.onUnreachable,
          s.pullIntervalSeconds,
          adapter,
        ],
      );
      await this.replaceProducts(db, id, products, redemptions);
      return (await this.find(id, db))!;
    });
  }

  /** `redemptions`: the redemptions of every product it serves now or is to serve (`products`). */
  async update(
    id: string,
    s: ConnectionSettings,
    products?: { list: ConnectedProduct[]; redemptions: Map<string, number> },
  ): Promise<ConnectionView | undefined> {
    return this.database.transaction(async (db) => {
      const rows = await queryRows(
        db,
        `UPDATE marketplace_connections
            SET name = $2, base_url = $3, check_at_redeem = $4, report_redemptions = $5, on_unreachable = $6,
                pull_interval_seconds = $7, updated_at = now(),
                next_pull_at = CASE WHEN $7 > 0 THEN coalesce(next_pull_at, now()) END
          WHERE id = $1 RETURNING id`,
        [id, s.name, s.baseUrl, s.checkAtRedeem, s.reportRedemptions, s.onUnreachable, s.pullIntervalSeconds],
      );
      if (!rows.length) return undefined;
      if (products) await this.replaceProducts(db, id, products.list, products.redemptions);
      return this.find(id, db);
    });
  }

  /**
   * The connection's products become `products`. A product it keeps keeps the redemptions it started from; a new one
   * starts from its redemptions now (`redemptions`); one it no longer serves leaves what it counted in the connection's
   * `redeemed`.
   */
  private async replaceProducts(
    db: DatabaseService['manager'],
    id: string,
    products: ConnectedProduct[],
    redemptions: Map<string, number>,
  ) {
    const before = new Map(
      (
        await queryRows<{ productId: string; before: number }>(
          db,
          `DELETE FROM marketplace_products WHERE connection_id = $1
           RETURNING product_id AS "productId", redemptions_before::int AS before`,
          [id],
        )
      ).map((r) => [r.productId, r.before]),
    );
    const kept = new Set(products.map((p) => p.productId));
    const counted = [...before]
      .filter(([productId]) => !kept.has(productId))
      .reduce((sum, [productId, from]) => sum + Math.max(0, (redemptions.get(productId) ?? from) - from), 0);
    if (counted) {
      await db.query(`UPDATE marketplace_connections SET redeemed = redeemed + $2 WHERE id = $1`, [id, counted]);
    }
    if (!products.length) return;
    await db.query(
      `INSERT INTO marketplace_products (connection_id, product_id, external_ref, redemptions_before)
       SELECT $1, p.product_id, p.external_ref, p.before
         FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS p (product_id, external_ref, before)`,
      [
        id,
        products.map((p) => p.productId),
        products.map((p) => p.externalRef),
        products.map((p) => before.get(p.productId) ?? redemptions.get(p.productId) ?? 0),
      ],
    );
  }

  list(): Promise<ConnectionView[]> {
    return queryRows(
      this.database.manager,
      `SELECT ${CONNECTION_COLUMNS} FROM marketplace_connections c ORDER BY c.created_at, c.id`,
    );
  }

  async find(id: string, db = this.database.manager): Promise<ConnectionView | undefined> {
    const [row] = await queryRows<ConnectionView>(
      db,
      `SELECT ${CONNECTION_COLUMNS} FROM marketplace_connections c WHERE c.id = $1`,
      [id],
    );
    return row;
  }

  /** Its products, events and reports go with it (ON DELETE CASCADE). */
  async remove(id: string): Promise<boolean> {
    const rows = await queryRows(
      this.database.manager,
      `DELETE FROM marketplace_connections WHERE id = $1 RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }

  /** What an inbound request is checked and read with: the opened secret, the adapter, the products' references. */
  async inboundOf(id: string): Promise<{ secret: string; adapter: AdapterKind; refs: string[] } | undefined> {
    const [row] = await queryRows<{ s: Buffer; adapter: AdapterKind; refs: string[] }>(
      this.database.manager,
      `SELECT c.secret_ciphertext AS s, c.adapter,
              array(SELECT p.external_ref FROM marketplace_products p WHERE p.connection_id = c.id
                     ORDER BY p.external_ref) AS refs
         FROM marketplace_connections c WHERE c.id = $1`,
      [id],
    );
    return row && { secret: this.cipher.open(row.s), adapter: row.adapter, refs: row.refs };
  }

  /** `rotate-data-key`: every connection's signing secret not yet under DATA_KEY re-sealed (a handful of rows; rerun-safe). */
  rotateSecrets(): Promise<number> {
    return resealColumn(this.database.manager, this.cipher, 'marketplace_connections', 'secret_ciphertext');
  }

  /** `rotate-data-key`'s closing check: connection secrets not under DATA_KEY. */
  async countSecretsNotUnder(keyId: Buffer): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.database.manager,
      `SELECT count(*)::int AS n FROM marketplace_connections WHERE substring(secret_ciphertext FROM 2 FOR 4) <> $1`,
      [keyId],
    );
    return n;
  }

  /** The product a connection maps `externalRef` to (undefined: none). */
  async productFor(connectionId: string, externalRef: string): Promise<string | undefined> {
    const [row] = await queryRows<{ product_id: string }>(
      this.database.manager,
      `SELECT product_id FROM marketplace_products WHERE connection_id = $1 AND external_ref = $2`,
      [connectionId, externalRef],
    );
    return row?.product_id;
  }

  /** Every connected product with its connection's switches and opened secret (a handful of rows). */
  async links(): Promise<ProductLink[]> {
    const rows = await queryRows<Omit<ProductLink, 'secret'> & { s: Buffer }>(
      this.database.manager,
      `SELECT p.product_id AS "productId", p.external_ref AS "externalRef", c.id AS "connectionId", c.adapter,
              c.base_url AS "baseUrl", c.secret_ciphertext AS s, c.check_at_redeem AS "checkAtRedeem",
              c.report_redemptions AS "reportRedemptions", c.on_unreachable AS "onUnreachable",
              c.created_at AS "createdAt"
         FROM marketplace_products p JOIN marketplace_connections c ON c.id = p.connection_id`,
    );
    return rows.map(({ s, ...link }) => ({ ...link, secret: this.cipher.open(s) }));
  }

  /** A cheap version of the links: another instance's change shows in it (count and latest change). */
  async linksVersion(): Promise<string> {
    const [row] = await queryRows<{ v: string }>(
      this.database.manager,
      `SELECT count(*)::text || '/' || coalesce(max(updated_at)::text, '') AS v FROM marketplace_connections`,
    );
    return row.v;
  }

  /** The event id seen before on this connection (its first time is recorded by `recordEvent`). */
  async eventSeen(connectionId: string, eventId: string): Promise<boolean> {
    const rows = await queryRows(
      this.database.manager,
      `SELECT 1 FROM marketplace_events WHERE connection_id = $1 AND event_id = $2`,
      [connectionId, eventId],
    );
    return rows.length > 0;
  }

  /**
   * Records an applied event and adds its figures to the connection; false when the id was recorded meanwhile (a
   * concurrent replay: its figures are not added twice).
   */
  async recordEvent(
    connectionId: string,
    eventId: string,
    type: string,
    figures: { applied: number; codesReceived: number; refundsApplied: number },
  ): Promise<boolean> {
    const rows = await queryRows(
      this.database.manager,
      `WITH e AS (
         INSERT INTO marketplace_events (connection_id, event_id, type, applied) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING connection_id)
       UPDATE marketplace_connections c
          SET last_event_at = now(), codes_received = codes_received + $5, refunds_applied = refunds_applied + $6
         FROM e WHERE c.id = e.connection_id RETURNING c.id`,
      [connectionId, eventId, type, figures.applied, figures.codesReceived, figures.refundsApplied],
    );
    return rows.length > 0;
  }

  /** The status's figures; `redeemed` still wants its products' redemptions since they were served (`servedFrom`). */
  async figures(id: string) {
    const [row] = await queryRows<{
      codesReceived: number;
      redeemed: number;
      refundsApplied: number;
      servedFrom: Array<{ productId: string; before: number }>;
    }>(
      this.database.manager,
      `SELECT codes_received AS "codesReceived", redeemed, refunds_applied AS "refundsApplied",
              coalesce((SELECT json_agg(json_build_object('productId', p.product_id, 'before', p.redemptions_before))
                          FROM marketplace_products p WHERE p.connection_id = c.id), '[]'::json) AS "servedFrom"
         FROM marketplace_connections c WHERE c.id = $1`,
      [id],
    );
    return row;
  }

  // --- Pull ---

  /** Connections whose pull is due, claimed for `claimSeconds` (another worker skips them meanwhile). */
  async claimDuePulls(claimSeconds: number): Promise<DuePull[]> {
    const rows = await queryRows<Omit<DuePull, 'secret'> & { s: Buffer }>(
      this.database.manager,
      `UPDATE marketplace_connections c SET next_pull_at = now() + make_interval(secs => $1)
        WHERE c.id IN (SELECT id FROM marketplace_connections
                        WHERE pull_interval_seconds > 0 AND next_pull_at <= now() FOR UPDATE SKIP LOCKED)
       RETURNING c.id, c.adapter, c.base_url AS "baseUrl", c.secret_ciphertext AS s, c.pull_cursor AS cursor,
                 c.pull_interval_seconds AS "pullIntervalSeconds"`,
      [claimSeconds],
    );
    return rows.map(({ s, ...pull }) => ({ ...pull, secret: this.cipher.open(s) }));
  }

  /** A pull's outcome: the new cursor (kept when null), or the error; the next pull after `retryInSeconds`. */
  async pulled(id: string, cursor: string | null, error: string | null, retryInSeconds: number): Promise<void> {
    await this.database.manager.query(
      `UPDATE marketplace_connections
          SET pull_cursor = coalesce($2, pull_cursor), last_pull_at = now(), last_pull_error = $3,
              next_pull_at = now() + make_interval(secs => $4)
        WHERE id = $1`,
      [id, cursor, error?.slice(0, 500) ?? null, retryInSeconds],
    );
  }
}
