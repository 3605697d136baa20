import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';
import { BlocklistKind } from './entities/risk-blocklist-entry.entity';

export interface BlocklistRow {
  id: string;
  kind: BlocklistKind;
  value: string;
  hits: number;
  createdAt: Date;
}

/** What a redemption is matched against the blocklist with; null parts match nothing. */
export interface BlocklistProbe {
  email: string;
  domain: string;
  ip: string | null;
  phone: string | null;
}

const BLOCKLIST_COLUMNS = `id, kind, value, hits, created_at AS "createdAt"`;

/** The one owner of `risk_settings`, `risk_blocklist` and `risk_counters` (docs/product.md §25.1). */
@Injectable()
export class RiskRepository {
  constructor(private readonly database: DatabaseService) {}

  async rules(): Promise<Record<string, unknown>> {
    const [row] = await this.database.manager.query(`SELECT rules FROM risk_settings WHERE id = 1`);
    return row?.rules ?? {};
  }

  async saveRules(rules: Record<string, unknown>): Promise<void> {
    await this.database.manager.query(
      `INSERT INTO risk_settings (id, rules, updated_at) VALUES (1, $1::jsonb, now())
       ON CONFLICT (id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = now()`,
      [JSON.stringify(rules)],
    );
  }

  async blocklist(): Promise<BlocklistRow[]> {
    return this.database.manager.query(`SELECT ${BLOCKLIST_COLUMNS} FROM risk_blocklist ORDER BY created_at, id`);
  }

  /**
   * Adds an entry (an address in `network(inet)` form), or answers the existing one of the same kind and value:
   * adding twice is one entry.
   */
  async addToBlocklist(kind: BlocklistKind, value: string): Promise<{ row: BlocklistRow; created: boolean }> {
    const [row] = await this.database.manager.query(
      `WITH i AS (
         INSERT INTO risk_blocklist (kind, value)
         VALUES ($1, coalesce(network($3::inet)::text, $2))
         ON CONFLICT (kind, value) DO NOTHING
         RETURNING ${BLOCKLIST_COLUMNS}, true AS created
       )
       SELECT * FROM i
       UNION ALL
       SELECT ${BLOCKLIST_COLUMNS}, false FROM risk_blocklist
        WHERE kind = $1 AND value = coalesce(network($3::inet)::text, $2)
          AND NOT EXISTS (SELECT 1 FROM i)`,
      [kind, value, kind === 'address' ? value : null],
    );
    const { created, ...entry } = row;
    return { row: entry, created };
  }

  async removeFromBlocklist(id: string): Promise<BlocklistRow | null> {
    const [row] = await queryRows<BlocklistRow>(
      this.database.manager,
      `DELETE FROM risk_blocklist WHERE id = $1 RETURNING ${BLOCKLIST_COLUMNS}`,
      [id],
    );
    return row ?? null;
  }

  /**
   * The entries a redemption matches, each one's hit counted: e-mail, its domain, phone by value (the unique
   * index), an address by CIDR containment (the blocklist is staff-made and small; no redemption adds to it).
   */
  async hitBlocklist(probe: BlocklistProbe): Promise<Array<{ kind: BlocklistKind; value: string }>> {
    return queryRows(
      this.database.manager,
      `UPDATE risk_blocklist SET hits = hits + 1
        WHERE (kind = 'email' AND value = $1) OR (kind = 'domain' AND value = $2) OR (kind = 'phone' AND value = $4)
           OR (kind = 'address' AND $3::inet IS NOT NULL AND $3::inet <<= value::inet)
       RETURNING kind, value`,
      [probe.email, probe.domain, probe.ip, probe.phone],
    );
  }

  /**
   * Adds one to the subject's counter of the current bucket and answers the subject's total over the window
   * (`windowMs` back from now, the current bucket included). The upsert takes the bucket's row lock, so two racing
   * redemptions of one subject read totals one apart: at a threshold, exactly one of them is over it.
   */
  async count(rule: string, subject: Buffer, bucketMs: number, windowMs: number, by = 1): Promise<number> {
    const [row] = await this.database.manager.query(
      `WITH b AS (SELECT to_timestamp(floor(extract(epoch FROM now()) * 1000 / $3) * $3 / 1000) AS bucket),
       up AS (
         INSERT INTO risk_counters AS c (rule, subject, bucket, count) SELECT $1, $2, b.bucket, $5 FROM b
         ON CONFLICT (rule, subject, bucket) DO UPDATE SET count = c.count + EXCLUDED.count
         RETURNING c.count, c.bucket
       )
       SELECT (SELECT count FROM up) + coalesce((
                SELECT sum(count) FROM risk_counters
                 WHERE rule = $1 AND subject = $2 AND bucket < (SELECT bucket FROM up)
                   AND bucket > now() - make_interval(secs => $4 / 1000.0)), 0)::int AS total`,
      [rule, subject, bucketMs, windowMs, by],
    );
    return row.total;
  }

  /** Takes back one count of the subject's current bucket (the redemption it was counted for was not made). */
  async uncount(rule: string, subject: Buffer, bucketMs: number): Promise<void> {
    await this.database.manager.query(
      `UPDATE risk_counters SET count = count - 1
        WHERE rule = $1 AND subject = $2 AND count > 0
          AND bucket = to_timestamp(floor(extract(epoch FROM now()) * 1000 / $3) * $3 / 1000)`,
      [rule, subject, bucketMs],
    );
  }

  /** Drops the buckets no window reaches any more (older than `olderThanMs`). */
  async dropOldCounters(olderThanMs: number): Promise<number> {
    const rows = await queryRows(
      this.database.manager,
      `DELETE FROM risk_counters WHERE bucket < now() - make_interval(secs => $1 / 1000.0) RETURNING 1`,
      [olderThanMs],
    );
    return rows.length;
  }
}
