import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { RetentionJob } from '../backend/src/modules/retention/retention.job';
import { MAINTENANCE_QUEUE } from '../backend/src/modules/jobs/job';
import { RETENTION_CLEANUP } from '../backend/src/modules/retention/retention.job';
import { bullQueue } from './helpers/jobs';
import { startTestApp, TestApp } from './helpers/app';
import { productId, PRODUCTS } from './helpers/factories';
import { eventually, redeemNew } from './helpers/redemptions';

// What retention deletes and keeps (RetentionJob.run, the customer purge racing redemptions):
// test/medium/retention.medium-spec.ts. Here: the job's schedules in the running app and its configured limits.
describe('Retention without Redis', () => {
  it('runs on its interval in-process', async () => {
    const t = await startTestApp({ RETENTION_INTERVAL_MS: '1000' });
    try {
      const [row] = await t.db.query(
        `INSERT INTO security_audit_log (action, success, created_at)
         VALUES ('test.retention', true, now() - interval '400 days') RETURNING id`,
      );
      await eventually(
        async () => (await t.db.query(`SELECT 1 FROM security_audit_log WHERE id = $1`, [row.id])).length === 0,
        10_000,
        'the interval run',
      );
      // The run records itself after its deletes: wait for that row too.
      const [run] = await eventually(
        async () => {
          const rows = await t.db.query(`SELECT details FROM security_audit_log WHERE action = 'system.retention'`);
          return rows.length ? rows : null;
        },
        10_000,
        'the retention audit row',
      );
      expect(run.details).toEqual({
        auditLogs: 1,
        emailLogs: 0,
        redemptions: 0,
        customers: 0,
        adminSessions: 0,
        adminAttempts: 0,
        webhookDeliveries: 0,
        customerAccessLinks: 0,
      });
    } finally {
      await t.close();
    }
  });
});

describe('Retention configuration and scheduling', () => {
  let t: TestApp;
  const prefix = `ret-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    t = await startTestApp({
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      AUDIT_RETENTION_DAYS: '30',
      EMAIL_LOG_RETENTION_DAYS: '60',
      REDEMPTION_RETENTION_DAYS: '90',
      RETENTION_INTERVAL_MS: '3600000',
    });
  });
  afterAll(async () => {
    await t.close();
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('is a repeatable Bull job with the configured interval, replacing an older schedule', async () => {
    const queue = bullQueue(t, MAINTENANCE_QUEUE);
    const retention = async () =>
      (await queue.getRepeatableJobs()).filter((j) => j.name === RETENTION_CLEANUP.name).map((j) => Number(j.every));
    expect(
      await eventually(async () => (await retention()).length > 0 && retention(), 10_000, 'retention schedule'),
    ).toEqual([3_600_000]);

    // A second API instance started with another interval takes over the schedule.
    const other = await startTestApp({
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      RETENTION_INTERVAL_MS: '7200000',
    });
    try {
      expect(
        await eventually(async () => (await retention()).includes(7_200_000) && retention(), 10_000, 'new schedule'),
      ).toEqual([7_200_000]);
    } finally {
      await other.close();
    }
  });

  it('uses the configured limits', async () => {
    await t.db.query(
      `INSERT INTO security_audit_log (action, success, created_at) VALUES ('test.retention', true, now() - interval '31 days'),
              ('test.retention', true, now() - interval '29 days')`,
    );
    await t.db.query(
      `INSERT INTO email_logs (provider, recipient, subject, status, created_at)
       VALUES ('t', 'a@example.com', 's', 'sent', now() - interval '61 days'), ('t', 'a@example.com', 's', 'sent', now() - interval '59 days')`,
    );
    const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    await t.db.query(`UPDATE redemptions SET redeemed_at = now() - interval '91 days' WHERE id = $1`, [r.id]);
    const result = await t.app.get(RetentionJob).run();
    expect(result).toEqual(expect.objectContaining({ auditLogs: 1, emailLogs: 1, redemptions: 1 }));
    // The customer was created just now: kept until it is older than the limit itself.
    expect(result.customers).toBe(0);
  });
});
