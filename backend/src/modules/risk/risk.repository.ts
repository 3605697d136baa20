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

const BLOCKLIST_COLUMNS = `id, kind, value, hits, created_at AS "createdAt"`;

/** The one owner of `risk_settings` and `risk_blocklist` (docs/product.md §25.1). */
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

  /** Counts a hit on each of the entries (the ones a redemption matched; one removed meanwhile is not counted). */
  async countHits(ids: string[]): Promise<void> {
    await this.database.manager.query(`UPDATE risk_blocklist SET hits = hits + 1 WHERE id = ANY($1::uuid[])`, [ids]);
  }
}
