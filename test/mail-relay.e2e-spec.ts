import { randomBytes } from 'crypto';
import { JobQueue } from '../backend/src/modules/jobs/job-queue';
import { MAIL_QUEUE } from '../backend/src/modules/mail/mail.jobs';
import { startTestApp, TestApp } from './helpers/app';
import { productId, PRODUCTS } from './helpers/factories';
import { watchJobs } from './helpers/jobs';
import { NO_MAIL_OUTBOX_ENV } from './helpers/processes';
import { eventually, redeemNew } from './helpers/redemptions';
import { startRedisServer, TestRedisServer } from './helpers/redis';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

/**
 * The redemption's request queues nothing: the workers' relay reads new redemptions' pending e-mails and queues them
 * (docs/architecture.md "E-mail (outbox)"). Here on Redis, as deployed at scale: an API that runs no jobs
 * (WORKERS_IN_API=false) and a worker started after the redemption.
 */
describe('the order e-mail relay (Redis, an API without workers)', () => {
  let smtp: TestSmtpServer;
  let redis: TestRedisServer;
  let api: TestApp;
  let worker: TestApp | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    redis = await startRedisServer();
    env = { SMTP_URL: smtp.url, REDIS_URL: redis.url, REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}` };
    api = await startTestApp({ ...env, WORKERS_IN_API: 'false' });
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
    await redis.stop();
    await smtp.close();
  });

  const outboxState = async (id: string) =>
    (await api.db.query(`SELECT email_status, email_attempts FROM redemptions WHERE id = $1`, [id]))[0];

  it("queues no job in the redemption's request; a worker's relay queues it and its e-mail goes out once", async () => {
    const { id } = await redeemNew(api, await productId(api.db, PRODUCTS.homeBusinessMac), {
      email: 'relay@example.com',
    });
    // `pending` waits for the adds the process has made: none, and nothing on Redis either.
    expect(await api.app.get(JobQueue).pending(MAIL_QUEUE)).toBe(0);
    expect(await outboxState(id)).toEqual({ email_status: 'pending', email_attempts: 0 });

    // A process that runs jobs on the same database and Redis (the app's HTTP side is idle here), whose sweep takes
    // nothing younger than ten years: only the relay can queue this e-mail.
    worker = await startTestApp(
      { ...env, MAIL_SWEEP_AFTER_MS: NO_MAIL_OUTBOX_ENV.MAIL_SWEEP_AFTER_MS },
      { database: api.database },
    );
    const jobs = watchJobs(worker);
    await eventually(
      async () => smtp.messages.some((m) => (m.to as { text: string }).text === 'relay@example.com'),
      20_000,
      'the order e-mail',
    );
    // More reads of the relay and sweeps, every job done: nothing sent twice.
    await jobs.settled({ count: 2 });
    expect(smtp.messages.filter((m) => (m.to as { text: string }).text === 'relay@example.com')).toHaveLength(1);
    expect(await outboxState(id)).toEqual({ email_status: 'sent', email_attempts: 1 });
  });
});
