import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { JobHandlers } from '../backend/src/modules/jobs/job-handlers.service';
import { JOB, QUEUE } from '../backend/src/modules/jobs/jobs.constants';
import { RedemptionRetentionRepository } from '../backend/src/modules/redemption/redemption-retention.repository';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { eventually, redeemNew } from './helpers/redemptions';
import { randomHex } from './helpers/seed';
import { moveRedemptions } from './helpers/counted-sql';

describe('Retention job', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('deletes audit rows after 1 year, e-mail logs after 2 years, redemptions after 7 years', async () => {
    const audit = async (daysAgo: number) =>
      (
        await t.db.query(
          `INSERT INTO security_audit_log (action, success, created_at) VALUES ('test.retention', true, now() - make_interval(days => $1)) RETURNING id`,
          [daysAgo],
        )
      )[0].id;
    const emailLog = async (daysAgo: number) =>
      (
        await t.db.query(
          `INSERT INTO email_logs (provider, recipient, subject, status, created_at)
           VALUES ('test', 'a@example.com', 's', 'sent', now() - make_interval(days => $1)) RETURNING id`,
          [daysAgo],
        )
      )[0].id;
    const oldAudit = await audit(366);
    const keptAudit = await audit(364);
    const oldLog = await emailLog(731);
    const keptLog = await emailLog(729);

    const proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    const keyId = await addLicenseKey(t.db, proPlus, 'RETENTION-KEY-1');
    const old = await redeemNew(t, proPlus);
    const kept = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    await moveRedemptions(t.db, `now() - interval '7 years 2 days'`, `r.id = $1`, [old.id]);
    await t.db.query(`UPDATE customers SET created_at = now() - interval '7 years 2 days' WHERE email = $1`, [
      old.email,
    ]);
    await moveRedemptions(t.db, `now() - interval '6 years'`, `r.id = $1`, [kept.id]);

    const result = await t.app.get(JobHandlers).runRetention();
    expect(result).toEqual({
      auditLogs: 1,
      emailLogs: 1,
      redemptions: 1,
      customers: 1,
      adminSessions: 0,
      adminAttempts: 0,
      webhookDeliveries: 0,
      customerAccessLinks: 0,
    });

    const ids = async (table: string, list: string[]) =>
      (await t.db.query(`SELECT id FROM ${table} WHERE id = ANY($1::uuid[])`, [list])).map((r: { id: string }) => r.id);
    expect(await ids('security_audit_log', [oldAudit, keptAudit])).toEqual([keptAudit]);
    expect(await ids('email_logs', [oldLog, keptLog])).toEqual([keptLog]);
    expect(await ids('redemptions', [old.id, kept.id])).toEqual([kept.id]);
    expect(await t.db.query(`SELECT id FROM customers WHERE email = $1`, [old.email])).toEqual([]);
    expect(await t.db.query(`SELECT id FROM customers WHERE email = $1`, [kept.email])).toHaveLength(1);
    // The code stays redeemed and the key stays used: nobody gets that key again.
    const [code] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [old.code]);
    expect(code.is_redeemed).toBe(true);
    expect(
      await t.db.query(`SELECT redemption_id FROM license_assignments WHERE license_key_id = $1`, [keyId]),
    ).toEqual([{ redemption_id: null }]);

    const [run] = await t.db.query(
      `SELECT details FROM security_audit_log WHERE action = 'system.retention' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(run.details).toEqual({
      auditLogs: 1,
      emailLogs: 1,
      redemptions: 1,
      customers: 1,
      adminSessions: 0,
      adminAttempts: 0,
      webhookDeliveries: 0,
      customerAccessLinks: 0,
    });
  });

  it('deletes admin sessions 30 days after they ended, with their spent refresh tokens, and attempt counters after a day', async () => {
    const [user] = await t.db.query(`SELECT id FROM admin_users WHERE username = 'admin'`);
    const session = async (expiresDaysAgo: number, active = true) =>
      (
        await t.db.query(
          `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, expires_at, is_active)
           VALUES ($1, $2, $3, now() - make_interval(days => $4), $5) RETURNING id`,
          [user.id, randomBytes(16).toString('hex'), randomBytes(16).toString('hex'), expiresDaysAgo, active],
        )
      )[0].id as string;
    const ended = await session(31);
    const revoked = await session(40, false);
    const recent = await session(29, false);
    const live = await session(-1);
    await t.db.query(`INSERT INTO admin_session_spent_tokens (token_hash, session_id) VALUES ($1, $2), ($3, $4)`, [
      randomBytes(16).toString('hex'),
      ended,
      randomBytes(16).toString('hex'),
      recent,
    ]);
    const attempt = async (hoursAgo: number) =>
      (
        await t.db.query(
          `INSERT INTO admin_attempts (admin_user_id, kind, outcome, created_at)
           VALUES ($1, 'secret-check', 'failure', now() - make_interval(hours => $2)) RETURNING id`,
          [user.id, hoursAgo],
        )
      )[0].id as string;
    const oldAttempt = await attempt(25);
    const keptAttempt = await attempt(2);

    const result = await t.app.get(JobHandlers).runRetention();
    expect(result).toMatchObject({ adminSessions: 2, adminAttempts: 1 });
    const ids = async (table: string, list: string[]) =>
      (await t.db.query(`SELECT id FROM ${table} WHERE id = ANY($1::uuid[]) ORDER BY id`, [list])).map(
        (r: { id: string }) => r.id,
      );
    expect(await ids('admin_sessions', [ended, revoked, recent, live])).toEqual([recent, live].sort());
    expect(await ids('admin_attempts', [oldAttempt, keptAttempt])).toEqual([keptAttempt]);
    const spent = await t.db.query(
      `SELECT session_id FROM admin_session_spent_tokens WHERE session_id = ANY($1::uuid[])`,
      [[ended, recent]],
    );
    expect(spent).toEqual([{ session_id: recent }]);
  });

  it('never deletes a customer who redeems at that moment, nor their redemption (purge and redemptions run concurrently)', async () => {
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const retention = t.app.get(RedemptionRetentionRepository);
    for (let round = 0; round < 15; round++) {
      // Old customers without a redemption: each is a purge candidate while redeeming.
      const emails = Array.from({ length: 8 }, () => `race-${randomHex(5)}@example.com`);
      await t.db.query(
        `INSERT INTO customers (email, first_name, last_name, created_at)
         SELECT e, 'Race', 'Test', now() - interval '7 years 2 days' FROM unnest($1::text[]) e`,
        [emails],
      );
      const codes = await addCodes(
        t.db,
        mac,
        emails.map(() => randomCode('RACE')),
      );
      const [, ...responses] = await Promise.all([
        retention.deleteUnusedCustomers(t.config.redemptionRetentionDays, 1000),
        ...emails.map((email, i) =>
          t
            .http()
            .post('/api/redeem-voucher')
            .send(redeemBody({ voucherCode: codes[i], email })),
        ),
      ]);
      expect(responses.map((r) => r.status)).toEqual(emails.map(() => 201));
      // Every redemption survived, with its customer.
      const rows = await t.db.query(
        `SELECT c.email FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
           JOIN customers c ON c.id = r.customer_id WHERE v.code = ANY($1)`,
        [codes],
      );
      expect(rows.map((r: { email: string }) => r.email).sort()).toEqual([...emails].sort());
    }
  });

  it('refuses to delete a customer who has a redemption (no cascade to redemptions)', async () => {
    const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    await expect(t.db.query(`DELETE FROM customers WHERE email = $1`, [r.email])).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23503', constraint: 'redemptions_customer_id_fkey' }),
    });
    expect(await t.db.query(`SELECT id FROM redemptions WHERE id = $1`, [r.id])).toHaveLength(1);
  });
});

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
    const queue = t.app.get<Queue>(getQueueToken(QUEUE.MAINTENANCE));
    const retention = async () =>
      (await queue.getRepeatableJobs()).filter((j) => j.name === JOB.RETENTION_CLEANUP).map((j) => Number(j.every));
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
    await moveRedemptions(t.db, `now() - interval '91 days'`, `r.id = $1`, [r.id]);
    const result = await t.app.get(JobHandlers).runRetention();
    expect(result).toEqual(expect.objectContaining({ auditLogs: 1, emailLogs: 1, redemptions: 1 }));
    // The customer was created just now: kept until it is older than the limit itself.
    expect(result.customers).toBe(0);
  });
});
