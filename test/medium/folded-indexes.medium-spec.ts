import { CustomerDataRepository } from '../../backend/src/modules/redemption/customer-data.repository';
import { LicenseKeyAdminRepository } from '../../backend/src/modules/license/license-key-admin.repository';
import { LicenseRepository } from '../../backend/src/modules/license/license.repository';
import { productId, PRODUCTS } from '../helpers/factories';
import {
  insertBulkRedemptions,
  MediumDatabase,
  planAtRows,
  startMediumDatabase,
  statementsSent,
} from '../helpers/medium';

/**
 * Migration 1763846000000 folded idx_success_tokens_redemption and idx_license_assignments_key into the primary keys
 * (redemption_id, token_hash) and (license_key_id, id) (docs/benchmarks.md "Two indexes folded into primary keys").
 * Here a customer's erasure deletes their redemptions' tokens and a key's use counts its assignments as before, on
 * 3,000 redemptions with two tokens each and 1,000 keys with three assignments each, and, planned with ten million
 * rows' statistics, each reads one range of a primary key.
 */
describe('the reads of the indexes folded into primary keys (medium)', () => {
  let m: MediumDatabase;
  let product: string;

  beforeAll(async () => {
    m = await startMediumDatabase();
    product = await productId(m.db, PRODUCTS.homeBusinessMac);
    await insertBulkRedemptions(m.db, product, 3000, 'fold');
    await m.db.query(
      `INSERT INTO success_tokens (token_hash, redemption_id, customer_email, product_name, expires_at)
       SELECT sha256(convert_to(r.id::text || t, 'UTF8')), r.id, 'x@example.net', 'P', now() + interval '1 day'
         FROM redemptions r CROSS JOIN generate_series(1, 2) t`,
    );
    // Keys written as rows before sealing (the clear key, no ciphertext): the table's check allows them.
    await m.db.query(
      `INSERT INTO license_keys (product_id, license_key, download_link, max_activations, current_activations)
       SELECT $1, 'FOLD-KEY-' || g, 'https://example.com/d', 3, 3 FROM generate_series(1, 1000) g`,
      [product],
    );
    await m.db.query(
      `INSERT INTO license_assignments (license_key_id, redemption_id)
       SELECT k.id, r.id
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM license_keys) k
         JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM redemptions) r ON (r.n - 1) / 3 + 1 = k.n`,
    );
    await m.db.query(`ANALYZE`);
  });
  afterAll(() => m?.close());

  it("deletes an erased customer's tokens through the tokens' primary key", async () => {
    const customers = new CustomerDataRepository(m.database, m.cipher);
    const [{ id: redemption }] = await m.db.query(
      `SELECT r.id FROM redemptions r JOIN customers c ON c.id = r.customer_id WHERE c.email = 'fold17@example.net'`,
    );
    const tokens = async () =>
      (await m.db.query(`SELECT count(*)::int AS n FROM success_tokens WHERE redemption_id = $1`, [redemption]))[0].n;
    expect(await tokens()).toBe(2);
    const { result, sent } = await statementsSent(m.db, () => customers.erase('fold17@example.net'));
    expect(result?.redemptionIds).toEqual([redemption]);
    expect(await tokens()).toBe(0);
    const [{ n: left }] = await m.db.query(`SELECT count(*)::int AS n FROM success_tokens`);
    expect(left).toBe(2 * 2999);
    const plan = await planAtRows(m.db, sent[sent.length - 1], ['success_tokens']);
    expect(plan).toContain('Delete on success_tokens');
    expect(plan).toContain('success_tokens_pkey');
    expect(plan).not.toContain('Seq Scan');
  });

  it("counts a key's assignments from the assignments' primary key", async () => {
    const licenses = new LicenseRepository(m.database, m.cipher);
    const keys = new LicenseKeyAdminRepository(m.database, m.cipher, licenses);
    const [{ id: key }] = await m.db.query(`SELECT id FROM license_keys ORDER BY id OFFSET 500 LIMIT 1`);
    const { result, sent } = await statementsSent(m.db, () => keys.usage(key));
    expect(result).toEqual({ currentActivations: 3, assignments: 3 });
    const plan = await planAtRows(m.db, sent[0], ['license_assignments', 'license_keys']);
    expect(plan).toContain('Index Only Scan using license_assignments_pkey');
    expect(plan).not.toContain('Seq Scan');
  });
});
