import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import { RedeemedCodesOffTheCodeRow1763844000000 } from '../backend/src/database/migrations/1763844000000-redeemed-codes-off-the-code-row';
import { createTestDatabase, TestDatabase } from './helpers/database';
import { migrate, migrationsBefore } from './helpers/migrations';

/**
 * Migrations 1763844000000 and 1763845000000 (docs/architecture.md "A code's state"): the codes a database already
 * holds are listed off their rows as the writers list them from then on: every available code in `available_codes`,
 * every redeemed code whose redemption was deleted before in `released_codes` with its time; void codes and codes
 * with their redemption in neither.
 */
describe('migration: the codes by state listed off the code row', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('ovr_mig_code_lists');
  });
  afterAll(() => db?.drop());

  it('lists the available codes and the redeemed codes without a redemption, with their times', async () => {
    await migrate(db.url, migrationsBefore(RedeemedCodesOffTheCodeRow1763844000000));

    const dataSource = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await dataSource.initialize();
    try {
      const [product] = await dataSource.query(`SELECT id FROM products ORDER BY name LIMIT 1`);
      const insert = async (code: string, state: string) =>
        (
          await dataSource.query(
            `INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at, voided_at)
             SELECT $1, $2, $3 = 'redeemed', CASE WHEN $3 = 'redeemed' THEN timestamptz '2026-01-02 03:04:05+00' END,
                    CASE WHEN $3 = 'void' THEN now() END
             RETURNING id, seq::text`,
            [code, product.id, state],
          )
        )[0] as { id: string; seq: string };
      const available = await insert('MIG-AVAILABLE', 'available');
      await insert('MIG-VOID', 'void');
      const withRedemption = await insert('MIG-REDEEMED', 'redeemed');
      const released = await insert('MIG-RELEASED', 'redeemed');
      const [customer] = await dataSource.query(
        `INSERT INTO customers (first_name, last_name, email) VALUES ('Ann', 'Lee', 'ann.mig@example.com') RETURNING id`,
      );
      await dataSource.query(
        `INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, first_name, last_name)
         VALUES ($1, $2, $3, 'sent', 'Ann', 'Lee')`,
        [withRedemption.id, customer.id, product.id],
      );

      await migrate(db.url);

      expect(await dataSource.query(`SELECT product_id, seq::text, voucher_code_id FROM available_codes`)).toEqual([
        { product_id: product.id, seq: available.seq, voucher_code_id: available.id },
      ]);
      expect(await dataSource.query(`SELECT voucher_code_id, product_id, redeemed_at FROM released_codes`)).toEqual([
        { voucher_code_id: released.id, product_id: product.id, redeemed_at: new Date('2026-01-02T03:04:05Z') },
      ]);
      const [{ options }] = await dataSource.query(`SELECT reloptions AS options FROM pg_class WHERE relname = $1`, [
        'voucher_codes',
      ]);
      expect(options).toContain('fillfactor=90');
    } finally {
      await dataSource.destroy();
    }
  });
});
