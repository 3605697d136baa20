import { Client } from 'pg';
import { EmailLogRepository } from '../../backend/src/modules/mail/email-log.repository';
import { RedemptionMailOutboxRepository } from '../../backend/src/modules/redemption/redemption-mail-outbox.repository';
import { productId, PRODUCTS } from '../helpers/factories';
import { eventually } from '../helpers/redemptions';
import {
  insertBulkRedemptions,
  MediumDatabase,
  planAtRows,
  startMediumDatabase,
  statementsSent,
} from '../helpers/medium';

/**
 * A worker sends MAIL_CONCURRENCY e-mails at once; their claims, their ends and their log rows are each gathered into
 * one statement (docs/operations.md "Order e-mail delivery"; docs/benchmarks.md "The mail worker's statements named
 * and gathered"): here on pending redemptions written by SQL, each answer is its own redemption's, a redemption
 * claimed twice at once is claimed once, and the statements find their rows through the primary key at ten million
 * rows.
 */
describe('the order e-mail outbox, batched (medium)', () => {
  let m: MediumDatabase;
  let outbox: RedemptionMailOutboxRepository;
  let logs: EmailLogRepository;
  let pending: Array<{ id: string; email: string; code: string }>;

  beforeAll(async () => {
    m = await startMediumDatabase();
    outbox = new RedemptionMailOutboxRepository(m.database, m.cipher);
    logs = new EmailLogRepository(m.database);
    const product = await productId(m.db, PRODUCTS.homeBusinessMac);
    await insertBulkRedemptions(m.db, product, 24, 'batch', { email_status: `'pending'` });
    await m.db.query('ANALYZE');
    pending = await m.db.query(
      `SELECT r.id, c.email, v.code FROM redemptions r JOIN customers c ON c.id = r.customer_id
         JOIN voucher_codes v ON v.id = r.voucher_code_id ORDER BY v.code`,
    );
  });
  afterAll(() => m?.close());

  const rowOf = async (id: string) =>
    (
      await m.db.query(
        `SELECT email_status, email_attempts, email_locked_until IS NOT NULL AS locked FROM redemptions WHERE id = $1`,
        [id],
      )
    )[0];

  it('claims concurrent e-mails in one named statement, each caller its own redemption, a redemption asked twice once', async () => {
    const asked = [...pending.slice(0, 8), pending[3]];
    const { result, sent } = await statementsSent(m.db, () =>
      Promise.all(asked.map(({ id }) => outbox.claimEmail(id, 60))),
    );
    expect(sent.map((statement) => statement.name)).toEqual(['mail-claim']);
    expect(result.slice(0, 8).map((row) => row && { id: row.id, email: row.email, code: row.code })).toEqual(
      pending.slice(0, 8),
    );
    // The second claim of the same redemption in the batch gets nothing: one worker sends it.
    expect(result[8]).toBeUndefined();
    expect(await rowOf(pending[3].id)).toEqual({ email_status: 'pending', email_attempts: 1, locked: true });
    // Claimed: not due again while the claim holds.
    expect(await outbox.claimEmail(pending[0].id, 60)).toBeUndefined();
    // A payload that is no id claims nothing and fails no other claim of its batch.
    const [odd, fine] = await Promise.all([outbox.claimEmail('not-an-id', 60), outbox.claimEmail(pending[20].id, 60)]);
    expect(odd).toBeUndefined();
    expect(fine?.id).toBe(pending[20].id);

    const plan = await planAtRows(m.db, sent[0], ['redemptions']);
    expect(plan).toContain('Index Scan using redemptions_pkey on redemptions');
    expect(plan).not.toMatch(/Seq Scan on redemptions/);
  });

  it('ends concurrent claims in one statement, each with its own outcome', async () => {
    const claimed = pending.slice(8, 16);
    await Promise.all(claimed.map(({ id }) => outbox.claimEmail(id, 60)));
    const ends = claimed.map(({ id }, i) => ({ id, status: i % 2 ? ('failed' as const) : ('sent' as const) }));
    const { sent } = await statementsSent(m.db, () => Promise.all(ends.map((e) => outbox.finishEmail(e.id, e.status))));
    expect(sent.map((statement) => statement.name)).toEqual(['mail-finish']);
    for (const { id, status } of ends) {
      expect(await rowOf(id)).toEqual({ email_status: status, email_attempts: 1, locked: false });
    }
    expect(await rowOf(pending[21].id)).toEqual({ email_status: 'pending', email_attempts: 0, locked: false });
    const plan = await planAtRows(m.db, sent[0], ['redemptions']);
    expect(plan).toContain('Index Scan using redemptions_pkey on redemptions');
  });

  it('writes the log rows of concurrent sends in one INSERT, cut to their columns', async () => {
    const sends = pending.slice(16, 20);
    const long = `${'x'.repeat(260)}@example.net`;
    const { sent } = await statementsSent(m.db, () =>
      Promise.all([
        ...sends.map(({ id, email }) =>
          logs.logAttempts(id, email, `Order ${id}`, [
            { provider: 'primary', ok: false, error: '451 try later' },
            { provider: 'fallback', ok: true, messageId: `<${id}@example.com>` },
          ]),
        ),
        logs.logAttempts(null, long, 'y'.repeat(600), [{ provider: 'primary', ok: true }]),
      ]),
    );
    expect(sent.map((statement) => statement.name)).toEqual(['email-log-insert']);
    for (const { id, email } of sends) {
      const rows = await m.db.query(
        `SELECT provider, recipient, subject, status, error, message_id FROM email_logs WHERE redemption_id = $1
          ORDER BY provider DESC`,
        [id],
      );
      expect(rows).toEqual([
        {
          provider: 'primary',
          recipient: email,
          subject: `Order ${id}`,
          status: 'failed',
          error: '451 try later',
          message_id: null,
        },
        {
          provider: 'fallback',
          recipient: email,
          subject: `Order ${id}`,
          status: 'sent',
          error: null,
          message_id: `<${id}@example.com>`,
        },
      ]);
    }
    const [cut] = await m.db.query(
      `SELECT length(recipient) AS recipient, length(subject) AS subject FROM email_logs WHERE redemption_id IS NULL`,
    );
    expect(cut).toEqual({ recipient: 254, subject: 500 });
  });
  /**
   * Two pending redemptions whose rows lie in the table opposite to their ids' order (a scan meets the greater id
   * first): a statement that locked them in the order it read them would take the greater first.
   */
  async function pairStoredAgainstIdOrder(prefix: string): Promise<[string, string]> {
    const product = await productId(m.db, PRODUCTS.homeBusinessMac);
    await insertBulkRedemptions(m.db, product, 2, prefix, { email_status: `'pending'` });
    const rows: Array<{ id: string }> = await m.db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code LIKE $1 ORDER BY r.ctid`,
      [`${prefix.toUpperCase()}-%`],
    );
    const [low, high] = rows.map((row) => row.id).sort();
    // An update writes the row's new version after the other's.
    if (rows[0].id === low) await m.db.query(`UPDATE redemptions SET email_attempts = 0 WHERE id = $1`, [low]);
    await m.db.query('ANALYZE redemptions');
    return [low, high];
  }

  /**
   * While another transaction holds the lower id's row, `write` (on both rows) waits for it without holding the
   * greater's: that transaction then takes the greater one too, as a bulk assignment locking in id order does, and
   * nobody deadlocks.
   */
  async function expectLocksInIdOrder(low: string, high: string, write: () => Promise<unknown>) {
    const locker = new Client({ connectionString: m.testDatabase.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SET LOCAL lock_timeout = '5s'`);
      await locker.query(`SELECT 1 FROM redemptions WHERE id = $1 FOR NO KEY UPDATE`, [low]);
      const written = write();
      await eventually(
        async () =>
          (
            await m.db.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`,
            )
          )[0].n,
        15_000,
        'the batch waiting for the locked row',
      );
      await locker.query(`SELECT 1 FROM redemptions WHERE id = $1 FOR NO KEY UPDATE`, [high]);
      await locker.query('COMMIT');
      await written;
    } finally {
      await locker.end();
    }
  }

  it('locks a batch of claims, and of ends, in id order whatever order it reads the rows in', async () => {
    const [low, high] = await pairStoredAgainstIdOrder('order');
    let claimed: Array<{ id: string } | undefined> = [];
    await expectLocksInIdOrder(low, high, async () => {
      claimed = await Promise.all([outbox.claimEmail(high, 60), outbox.claimEmail(low, 60)]);
    });
    expect(claimed.map((row) => row?.id)).toEqual([high, low]);

    await expectLocksInIdOrder(low, high, () =>
      Promise.all([outbox.finishEmail(high, 'sent'), outbox.finishEmail(low, 'failed')]),
    );
    expect(await rowOf(high)).toEqual({ email_status: 'sent', email_attempts: 1, locked: false });
    expect(await rowOf(low)).toEqual({ email_status: 'failed', email_attempts: 1, locked: false });
  });
});
