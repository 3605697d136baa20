import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 26, the pool index kept clean. Every redemption updates its pool key (`current_activations`): a single-use
 * key leaves `idx_license_keys_pool` (partial, `current_activations < max_activations`), and the keys taken are the
 * oldest, so the index's head fills with entries of dead row versions that every redemption's "first free key"
 * walks past until a VACUUM removes them (pgbench fell from 2375 to 1328 tps in three minutes without one). The
 * default trigger (20% of the table dead) never comes at millions of keys. Per table:
 * - `autovacuum_vacuum_scale_factor = 0` with a fixed `autovacuum_vacuum_threshold`: vacuumed once that many rows are
 *   dead, whatever the table's size (in practice at every `autovacuum_naptime`, one minute, while redemptions run);
 * - `autovacuum_vacuum_cost_delay = 0`: the vacuum runs at full speed instead of sleeping 2 ms every 200 pages;
 * - `vacuum_index_cleanup = on` for `license_keys`: PostgreSQL 14+ skips the indexes when fewer than 2% of the table's
 *   pages hold dead rows (a minute of redemptions at ten million keys is below that), which would leave exactly the
 *   pool index's dead head in place.
 * The e-mail outbox on `redemptions` (two updates per redemption: the claim and the outcome), `voucher_codes` (the
 * claim: one dead version per redemption), `webhook_deliveries` and `pool_alerts` (outboxes) get the same trigger.
 * Storage parameters are not declared on entities (TypeORM has no notion of them); test/schema.e2e-spec.ts checks
 * `pg_class.reloptions` against this list.
 */
export const AUTOVACUUM_SETTINGS: Record<string, Record<string, string>> = {
  license_keys: {
    autovacuum_vacuum_scale_factor: '0',
    autovacuum_vacuum_threshold: '10000',
    autovacuum_vacuum_cost_delay: '0',
    vacuum_index_cleanup: 'on',
  },
  voucher_codes: {
    autovacuum_vacuum_scale_factor: '0',
    autovacuum_vacuum_threshold: '20000',
    autovacuum_vacuum_cost_delay: '0',
  },
  redemptions: {
    autovacuum_vacuum_scale_factor: '0',
    autovacuum_vacuum_threshold: '20000',
    autovacuum_vacuum_cost_delay: '0',
  },
  webhook_deliveries: {
    autovacuum_vacuum_scale_factor: '0',
    autovacuum_vacuum_threshold: '1000',
    autovacuum_vacuum_cost_delay: '0',
  },
  pool_alerts: {
    autovacuum_vacuum_scale_factor: '0',
    autovacuum_vacuum_threshold: '1000',
    autovacuum_vacuum_cost_delay: '0',
  },
};

export class AutovacuumHotTables1763835000000 implements MigrationInterface {
  name = 'AutovacuumHotTables1763835000000';

  public async up(q: QueryRunner): Promise<void> {
    // SHARE UPDATE EXCLUSIVE: redemptions and uploads go on while it is set.
    for (const [table, settings] of Object.entries(AUTOVACUUM_SETTINGS)) {
      const list = Object.entries(settings).map(([name, value]) => `${name} = ${value}`);
      await q.query(`ALTER TABLE ${table} SET (${list.join(', ')})`);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [table, settings] of Object.entries(AUTOVACUUM_SETTINGS)) {
      await q.query(`ALTER TABLE ${table} RESET (${Object.keys(settings).join(', ')})`);
    }
  }
}
