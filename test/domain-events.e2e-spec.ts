import { DatabaseService } from '../backend/src/database/database.service';
import { DomainEvents } from '../backend/src/events/domain-events.service';
import { startTestApp, TestApp } from './helpers/app';
import { randomHex } from './helpers/seed';

/**
 * An audited event published inside a transaction writes its audit row on that transaction (AuditListener,
 * docs/architecture.md "Events and who listens"): the row and the write it describes commit or roll back together.
 */
describe('Domain events: the audit row and its write are one transaction', () => {
  let t: TestApp;
  let database: DatabaseService;
  let events: DomainEvents;

  beforeAll(async () => {
    t = await startTestApp();
    database = t.app.get(DatabaseService);
    events = t.app.get(DomainEvents);
  });

  afterAll(() => t?.close());

  /** The write: the operator's e-mail changed; the event names the change in its audit row. */
  async function changeOperatorEmail(email: string, details: Record<string, unknown>): Promise<void> {
    await database.current.query(`UPDATE admin_users SET email = $1 WHERE username = 'operator'`, [email]);
    await events.publish('operator.reset-password', {
      success: true,
      resource: 'admin_users',
      resourceId: email,
      details,
    });
  }

  const operatorEmail = async () =>
    (await t.db.query(`SELECT email FROM admin_users WHERE username = 'operator'`))[0].email as string;
  const auditRows = (email: string) =>
    t.db.query(`SELECT action, success, details FROM security_audit_log WHERE resource_id = $1`, [email]);

  it('commits the audit row with the write', async () => {
    const email = `events-${randomHex(8)}@example.com`;
    await database.transaction(() => changeOperatorEmail(email, { step: 'commit' }));
    expect(await operatorEmail()).toBe(email);
    expect(await auditRows(email)).toEqual([
      { action: 'operator.reset-password', success: true, details: { step: 'commit' } },
    ]);
  });

  it('rolls the audit row back with the write', async () => {
    const before = await operatorEmail();
    const email = `events-${randomHex(8)}@example.com`;
    await expect(
      database.transaction(async () => {
        await changeOperatorEmail(email, { step: 'rollback' });
        throw new Error('the write failed after its event');
      }),
    ).rejects.toThrow('the write failed after its event');
    expect(await operatorEmail()).toBe(before);
    expect(await auditRows(email)).toEqual([]);
  });

  it('rolls the write back when its audit row cannot be written', async () => {
    const before = await operatorEmail();
    const email = `events-${randomHex(8)}@example.com`;
    // PostgreSQL's jsonb refuses \u0000: the audit INSERT fails on the transaction.
    await expect(database.transaction(() => changeOperatorEmail(email, { bad: 'nul \u0000' }))).rejects.toThrow(
      /unsupported Unicode escape sequence/,
    );
    expect(await operatorEmail()).toBe(before);
    expect(await auditRows(email)).toEqual([]);
  });
});
