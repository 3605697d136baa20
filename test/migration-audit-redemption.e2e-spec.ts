import { randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { DataCipher } from '../backend/src/config/data-cipher';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import { AuditRowsNameTheirRedemption1796190468411 } from '../backend/src/database/migrations/1796190468411-audit-rows-name-their-redemption';
import { createTestDatabase, TestDatabase } from './helpers/database';
import { addLicenseKey, licenseManagedProduct, testCiphers } from './helpers/factories';
import { migrate, migrationsBefore } from './helpers/migrations';

/**
 * Migration 1796190468411 (docs/operations.md "Redemption history"): audit rows written before it get the redemption
 * they are about, and manual assignments' rows the keys they assigned, so the history reads them as it reads new ones.
 */
describe('migration: audit rows name their redemption', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('ovr_mig_audit_redemption');
  });
  afterAll(() => db?.drop());

  it('backfills redemption_id from the resource and the assigned keys from the assignments of the same time', async () => {
    await migrate(db.url, migrationsBefore(AuditRowsNameTheirRedemption1796190468411));
    const data = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await data.initialize();
    // Keys sealed under a key of this test's own (addLicenseKey seals them as the application does).
    testCiphers.set(data, new DataCipher(randomBytes(32)));
    try {
      const product = await licenseManagedProduct(data, 'Audit backfill');
      const redeem = async (code: string): Promise<string> => {
        const [c] = await data.query(
          `INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at) VALUES ($1, $2, true, now()) RETURNING id`,
          [code, product],
        );
        const [customer] = await data.query(
          `INSERT INTO customers (first_name, last_name, email) VALUES ('Bo', 'Ng', $1) RETURNING id`,
          [`${code.toLowerCase()}@example.com`],
        );
        const [r] = await data.query(
          `INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, first_name, last_name)
           VALUES ($1, $2, $3, 'sent', 'Bo', 'Ng') RETURNING id`,
          [c.id, customer.id, product],
        );
        return r.id;
      };
      const [single, bulkA, bulkB] = [await redeem('AUD-0001'), await redeem('AUD-0002'), await redeem('AUD-0003')];
      const manual = await addLicenseKey(data, product, 'MANUAL_AAAAA-BBBBB-CCCCC-DDDDD-EEEEE');
      const volume = await addLicenseKey(data, product, 'MANUAL_VVVVV-WWWWW-XXXXX-YYYYY-ZZZZZ', { maxActivations: 2 });
      const t1 = new Date('2031-01-01T10:00:00.123Z');
      const t2 = new Date('2031-01-02T10:00:00.456Z');
      await data.query(
        `INSERT INTO license_assignments (license_key_id, redemption_id, assigned_at)
         VALUES ($1, $2, $3), ($4, $5, $6), ($4, $7, $6)`,
        [manual, single, t1, volume, bulkA, t2, bulkB],
      );
      const audit = async (action: string, resourceId: string | null, details: object, at: Date) =>
        (
          await data.query(
            `INSERT INTO security_audit_log (action, resource, resource_id, success, details, created_at)
             VALUES ($1, $2, $3, true, $4, $5) RETURNING id`,
            [action, action.startsWith('login') ? 'admin_user' : 'redemption', resourceId, details, at],
          )
        )[0].id as string;
      const assignRow = await audit('redemption.assign-license', single, { keyEnd: 'EEEEE' }, t1);
      const resendRow = await audit('redemption.resend-email', single, {}, new Date());
      const bulkRow = await audit('redemption.bulk-assign-license', null, { redemptionIds: [bulkA, bulkB] }, t2);
      const oddRow = await audit('redemption.resend-email', 'not-a-uuid', {}, new Date());
      const loginRow = await audit('login.success', single, {}, new Date());

      await migrate(db.url);

      const rows = new Map<string, { redemption_id: string | null; details: Record<string, unknown> }>(
        (await data.query(`SELECT id, redemption_id, details FROM security_audit_log`)).map(
          (r: { id: string; redemption_id: string | null; details: Record<string, unknown> }) => [r.id, r],
        ),
      );
      expect(rows.get(assignRow)).toEqual({
        id: assignRow,
        redemption_id: single,
        details: { keyEnd: 'EEEEE', licenseKeyId: manual },
      });
      expect(rows.get(resendRow)?.redemption_id).toBe(single);
      expect(rows.get(bulkRow)).toEqual({
        id: bulkRow,
        redemption_id: null,
        details: { redemptionIds: [bulkA, bulkB], licenseKeyIds: [volume] },
      });
      expect(rows.get(oddRow)?.redemption_id).toBeNull();
      expect(rows.get(loginRow)?.redemption_id).toBeNull();
      const [index] = await data.query(
        `SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_security_audit_log_redemption'`,
      );
      expect(index.indexdef).toContain('WHERE (redemption_id IS NOT NULL)');
    } finally {
      await data.destroy();
    }
  });
});
