import { InProcessJobQueue } from '../../backend/src/modules/jobs/in-process-job-queue';
import { JobRegistry } from '../../backend/src/modules/jobs/job-registry';
import { MAIL_QUEUE } from '../../backend/src/modules/mail/mail.jobs';
import { REDEMPTION_MAIL, redemptionMailJobId } from '../../backend/src/modules/redemption/order-mail';
import { OrderMailRelay, RELAY_OVERLAP_MS } from '../../backend/src/modules/mail/order-mail-relay';
import { RedemptionMailOutboxRepository } from '../../backend/src/modules/redemption/redemption-mail-outbox.repository';
import { productId, PRODUCTS } from '../helpers/factories';
import {
  insertBulkRedemptions,
  MediumDatabase,
  planAtRows,
  startMediumDatabase,
  statementsSent,
} from '../helpers/medium';
import { eventually } from '../helpers/redemptions';

/**
 * The relay that queues new redemptions' order e-mails from the workers (docs/architecture.md "E-mail (outbox)"), on
 * pending redemptions written by SQL, with the in-process job runner: which e-mails it queues, once, what a late
 * commit and a second worker change, and the index its read takes at ten million redemptions.
 */
describe('the order e-mail relay (medium)', () => {
  let m: MediumDatabase;
  let outbox: RedemptionMailOutboxRepository;
  let queue: InProcessJobQueue;
  let product: string;
  /** The redemptions whose e-mail job ran, in the order the jobs ran. */
  const handled: string[] = [];

  beforeAll(async () => {
    m = await startMediumDatabase();
    outbox = new RedemptionMailOutboxRepository(m.database, m.cipher);
    const registry = new JobRegistry();
    registry.register(REDEMPTION_MAIL, {
      queue: MAIL_QUEUE,
      jobId: redemptionMailJobId,
      handle: async ({ redemptionId }) => void handled.push(redemptionId),
    });
    queue = new InProcessJobQueue(registry);
    product = await productId(m.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(async () => {
    await queue?.onApplicationShutdown();
    await m?.close();
  });
  // Each test starts with no untried e-mail: those of the tests before count as tried.
  beforeEach(async () => {
    await m.db.query(`UPDATE redemptions SET email_attempts = 1 WHERE email_attempts = 0`);
    handled.length = 0;
  });

  const idsOf = async (prefix: string): Promise<string[]> =>
    (
      await m.db.query(
        `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code LIKE $1 ORDER BY r.id`,
        [`${prefix.toUpperCase()}-%`],
      )
    ).map((r: { id: string }) => r.id);
  const pending = { email_status: `'pending'` };
  /** Every job queued so far has run. */
  const drained = () => eventually(async () => (await queue.pending(MAIL_QUEUE)) === 0 || null);

  it("queues each new redemption's untried e-mail once, and none sent, tried, waiting for a key, erased or older than its window", async () => {
    await insertBulkRedemptions(m.db, product, 5, 'fresh', pending);
    await insertBulkRedemptions(m.db, product, 1, 'sent');
    await insertBulkRedemptions(m.db, product, 1, 'tried', { ...pending, email_attempts: '1' });
    await insertBulkRedemptions(m.db, product, 1, 'nokey', { ...pending, awaiting_license: 'true' });
    await insertBulkRedemptions(m.db, product, 1, 'erased', { ...pending, erased_at: 'now()' });
    await insertBulkRedemptions(m.db, product, 1, 'old', { ...pending, redeemed_at: `now() - interval '11 minutes'` });
    const relay = new OrderMailRelay(outbox, queue);

    expect(await relay.run()).toBe(5);
    await drained();
    expect([...handled].sort()).toEqual(await idsOf('fresh'));
    // Read again (they are still untried: the handler here does not claim them): known, not queued twice.
    expect(await relay.run()).toBe(0);
  });

  it('queues one committed late within the overlap, and leaves one later still to the sweep', async () => {
    await insertBulkRedemptions(m.db, product, 2, 'first', pending);
    const relay = new OrderMailRelay(outbox, queue);
    expect(await relay.run()).toBe(2);
    const [{ newest }] = await m.db.query(
      `SELECT max(redeemed_at) AS newest FROM redemptions WHERE email_status = 'pending' AND email_attempts = 0`,
    );
    await insertBulkRedemptions(m.db, product, 1, 'late', {
      ...pending,
      redeemed_at: `'${new Date(newest.getTime() - RELAY_OVERLAP_MS / 2).toISOString()}'`,
    });
    await insertBulkRedemptions(m.db, product, 1, 'later', {
      ...pending,
      redeemed_at: `'${new Date(newest.getTime() - RELAY_OVERLAP_MS * 2).toISOString()}'`,
    });
    await drained();
    handled.length = 0;
    expect(await relay.run()).toBe(1);
    await drained();
    expect(handled).toEqual(await idsOf('late'));
  });

  it('a second worker queues what no job has claimed yet; a claimed e-mail is no longer read', async () => {
    await insertBulkRedemptions(m.db, product, 4, 'two', pending);
    expect(await new OrderMailRelay(outbox, queue).run()).toBe(4);
    await drained();
    const [first, ...others] = await idsOf('two');
    // A job claims `first` (the worker sending it); the others' jobs ran here without claiming them.
    expect((await outbox.claimEmail(first, 60))?.id).toBe(first);
    handled.length = 0;
    const { result, sent } = await statementsSent(m.db, () => new OrderMailRelay(outbox, queue).run());
    await drained();
    expect(result).toBe(3);
    expect([...handled].sort()).toEqual(others);

    expect(sent.map((statement) => statement.name)).toEqual(['mail-unqueued']);
    await m.db.query('ANALYZE redemptions');
    const plan = await planAtRows(m.db, sent[0], ['redemptions', 'idx_redemptions_status_list']);
    expect(plan).toContain('idx_redemptions_status_list');
    expect(plan).not.toMatch(/Seq Scan on redemptions/);
  });
});
