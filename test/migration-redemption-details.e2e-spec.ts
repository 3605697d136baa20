import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import { RedemptionDetailsAndIdempotency1763830000000 } from '../backend/src/database/migrations/1763830000000-redemption-details-and-idempotency';
import { createTestDatabase, TestDatabase } from './helpers/database';
import { migrate, migrationsBefore } from './helpers/migrations';

/**
 * Migration 1763830000000 (docs/product.md §11.6): redemptions made before it get the details their customer
 * row held, and the name search's index moves from customers to redemptions.
 */
describe('migration: each redemption gets its own details', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('ovr_mig_details');
  });
  afterAll(() => db?.drop());

  it('fills name, phone, zip code, IP and country of existing redemptions from their customer', async () => {
    await migrate(db.url, migrationsBefore(RedemptionDetailsAndIdempotency1763830000000));

    const dataSource = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await dataSource.initialize();
    try {
      const [product] = await dataSource.query(`SELECT id FROM products ORDER BY name LIMIT 1`);
      const [customer] = await dataSource.query(
        `INSERT INTO customers (first_name, last_name, email, phone, zip_code, ip_address, country)
         VALUES ('Ann', 'Lee', 'ann@example.com', '+1 302 555 0100', '19901', '8.8.8.8', 'US') RETURNING id`,
      );
      const [code] = await dataSource.query(
        `INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at) VALUES ('OLD-0001', $1, true, now()) RETURNING id`,
        [product.id],
      );
      const [old] = await dataSource.query(
        `INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status) VALUES ($1, $2, $3, 'sent') RETURNING id`,
        [code.id, customer.id, product.id],
      );

      await migrate(db.url);

      const [row] = await dataSource.query(
        `SELECT first_name, last_name, phone, zip_code, ip_address, country, idempotency_key_hash FROM redemptions WHERE id = $1`,
        [old.id],
      );
      expect(row).toEqual({
        first_name: 'Ann',
        last_name: 'Lee',
        phone: '+1 302 555 0100',
        zip_code: '19901',
        ip_address: '8.8.8.8',
        country: 'US',
        idempotency_key_hash: null,
      });
      const indexes = (
        await dataSource.query(`SELECT indexname FROM pg_indexes WHERE indexname LIKE '%full_name_trgm'`)
      ).map((i: { indexname: string }) => i.indexname);
      expect(indexes).toEqual(['idx_redemptions_full_name_trgm']);
    } finally {
      await dataSource.destroy();
    }
  });
});
