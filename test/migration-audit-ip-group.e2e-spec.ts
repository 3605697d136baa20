import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import { AuditIpGroupWhereCounted1796192688776 } from '../backend/src/database/migrations/1796192688776-audit-ip-group-where-counted';
import { createTestDatabase, TestDatabase } from './helpers/database';
import { migrate, migrationsBefore } from './helpers/migrations';

/**
 * Migration 1796192688776 (docs/security.md, the third review): `security_audit_log.ip_group` stays only on the rows
 * the login IP block counts (failed sign-ins); every other row written before loses it, its address stays.
 */
describe('migration: the audit log keeps an address group only where a limit reads it', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('ovr_mig_audit_ip_group');
  });
  afterAll(() => db?.drop());

  it('clears the group of every row but failed sign-ins', async () => {
    await migrate(db.url, migrationsBefore(AuditIpGroupWhereCounted1796192688776));
    const rows: Array<[string, boolean]> = [
      ['login.failure', false],
      ['login.locked', false],
      ['login.2fa-failure', false],
      ['login.success', true],
      ['customer.access-link', true],
      ['customer.data-export', true],
      ['permission.denied', false],
    ];
    const dataSource = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await dataSource.initialize();
    try {
      for (const [action, success] of rows) {
        await dataSource.query(
          `INSERT INTO security_audit_log (action, success, ip_address, ip_group)
           VALUES ($1, $2, '2001:db8:9:1::5', '2001:db8:9:1::/64')`,
          [action, success],
        );
      }
    } finally {
      await dataSource.destroy();
    }

    await migrate(db.url);

    const after = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await after.initialize();
    try {
      const byAction = (a: { action: string }, b: { action: string }) => (a.action < b.action ? -1 : 1);
      const left = await after.query(`SELECT action, ip_address, ip_group FROM security_audit_log`);
      const counted = new Set(['login.failure', 'login.locked', 'login.2fa-failure']);
      const expected = rows.map(([action]) => ({
        action,
        ip_address: '2001:db8:9:1::5',
        ip_group: counted.has(action) ? '2001:db8:9:1::/64' : null,
      }));
      expect(left.sort(byAction)).toEqual(expected.sort(byAction));
    } finally {
      await after.destroy();
    }
  });
});
