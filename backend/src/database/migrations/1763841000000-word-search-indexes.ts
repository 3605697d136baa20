import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Searches whose cost does not grow with the data (issue 26; docs/architecture.md "Searching names and e-mails"):
 * - idx_redemptions_name_list: the lower-cased full name given with the redemption, then the list's own keys
 *   (exported, redeemed_at DESC, id). A term that is a full name reads its newest page straight from it, however
 *   many customers share the name; text_pattern_ops also answers a name's start (`LIKE 'maria g%'`).
 * - idx_customers_email_prefix, idx_customers_email_domain: the start of an e-mail and the start of its domain
 *   (b-trees, one entry per e-mail), instead of re-checking trigrams.
 * The trigram indexes stay for a term that starts inside a word. An expression index, not a column: nothing is
 * written by the redemption beyond the index entry, and an erased name (`''`) leaves only `' '` in it.
 */
export class WordSearchIndexes1763841000000 implements MigrationInterface {
  name = 'WordSearchIndexes1763841000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX idx_redemptions_name_list ON redemptions
         ((lower(first_name || ' ' || last_name)) text_pattern_ops, exported, redeemed_at DESC, id)`,
    );
    await q.query(`CREATE INDEX idx_customers_email_prefix ON customers (email text_pattern_ops)`);
    await q.query(
      `CREATE INDEX idx_customers_email_domain ON customers ((split_part(email, '@', 2)) text_pattern_ops)`,
    );
    // An expression index has statistics of its own only after ANALYZE (a sample: seconds at ten million rows); the
    // search's narrow-or-broad choice reads them.
    await q.query(`ANALYZE redemptions, customers`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_customers_email_domain`);
    await q.query(`DROP INDEX IF EXISTS idx_customers_email_prefix`);
    await q.query(`DROP INDEX IF EXISTS idx_redemptions_name_list`);
  }
}
