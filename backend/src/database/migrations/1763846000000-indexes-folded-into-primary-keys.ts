import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two indexes fewer for every redemption to write (issue 26; docs/benchmarks.md "Two indexes folded into primary
 * keys"): each was a single-column index beside a primary key of a uuid no statement reads.
 * - `success_tokens`: the primary key becomes (redemption_id, token_hash) and the `id` column goes. The key answers
 *   what idx_success_tokens_redemption answered (a redemption's tokens: the repeat's product name, the erasure, the
 *   cascade from a deleted redemption); the success page still finds a token by uq_success_tokens_token_hash.
 * - `license_assignments`: the primary key becomes (license_key_id, id), which answers a key's assignments (the key
 *   list's "assigned" count, the delete's check, the cascade from a deleted key) in place of
 *   idx_license_assignments_key. `redemption_id` cannot lead a primary key: it is set to NULL when its redemption is
 *   deleted, so idx_license_assignments_redemption stays.
 */
export class IndexesFoldedIntoPrimaryKeys1763846000000 implements MigrationInterface {
  name = 'IndexesFoldedIntoPrimaryKeys1763846000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE success_tokens DROP CONSTRAINT success_tokens_pkey`);
    await q.query(`ALTER TABLE success_tokens DROP COLUMN id`);
    await q.query(
      `ALTER TABLE success_tokens ADD CONSTRAINT success_tokens_pkey PRIMARY KEY (redemption_id, token_hash)`,
    );
    await q.query(`DROP INDEX idx_success_tokens_redemption`);
    await q.query(`ALTER TABLE license_assignments DROP CONSTRAINT license_assignments_pkey`);
    await q.query(
      `ALTER TABLE license_assignments ADD CONSTRAINT license_assignments_pkey PRIMARY KEY (license_key_id, id)`,
    );
    await q.query(`DROP INDEX idx_license_assignments_key`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX idx_license_assignments_key ON license_assignments (license_key_id)`);
    await q.query(`ALTER TABLE license_assignments DROP CONSTRAINT license_assignments_pkey`);
    await q.query(`ALTER TABLE license_assignments ADD CONSTRAINT license_assignments_pkey PRIMARY KEY (id)`);
    await q.query(`CREATE INDEX idx_success_tokens_redemption ON success_tokens (redemption_id)`);
    await q.query(`ALTER TABLE success_tokens DROP CONSTRAINT success_tokens_pkey`);
    await q.query(`ALTER TABLE success_tokens ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid()`);
    await q.query(`ALTER TABLE success_tokens ADD CONSTRAINT success_tokens_pkey PRIMARY KEY (id)`);
  }
}
