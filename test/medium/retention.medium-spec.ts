import { moveRedemptions } from '../helpers/counted-sql';
import { AuthModule } from '../../backend/src/modules/auth/auth.module';
import { CustomerCentreModule } from '../../backend/src/modules/customer-centre/customer-centre.module';
import { MailModule } from '../../backend/src/modules/mail/mail.module';
import { RetentionJob } from '../../backend/src/modules/retention/retention.job';
import { StatsModule } from '../../backend/src/modules/stats/stats.module';
import { WebhookModule } from '../../backend/src/modules/webhook/webhook.module';
import { AuditModule } from '../../backend/src/modules/audit/audit.module';
import { JobsModule } from '../../backend/src/modules/jobs/jobs.module';
import { RealtimeModule } from '../../backend/src/modules/realtime/realtime.module';
import { RedeemVoucherDto } from '../../backend/src/modules/redemption/dto/redeem-voucher.dto';
import { RedemptionModule } from '../../backend/src/modules/redemption/redemption.module';
import { RedemptionRetentionRepository } from '../../backend/src/modules/redemption/redemption-retention.repository';
import { RedemptionService } from '../../backend/src/modules/redemption/redemption.service';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';
import { MediumModule, startMediumModule } from '../helpers/medium';
import { randomHex } from '../helpers/seed';

/**
 * docs/product.md §1.5 retention: RetentionJob.run asks each owner (RetentionRegistry) to delete its old rows in batches (audit log
 * after a year, e-mail logs after two, redemptions after seven, then their unused customers; ended admin sessions,
 * attempt counters). Services on PostgreSQL without HTTP; the in-process and Bull schedules of the job and its
 * configured limits stay in test/retention.e2e-spec.ts.
 */
describe('Retention (medium)', () => {
  let m: MediumModule;

  beforeAll(async () => {
    m = await startMediumModule((config) => [
      AuditModule,
      RealtimeModule,
      AuthModule,
      RedemptionModule,
      MailModule,
      WebhookModule,
      CustomerCentreModule,
      StatsModule,
      JobsModule.forRoot(config, { processJobs: false }),
    ]);
  });
  afterAll(() => m?.close());

  const redeem = (code: string, email = `ret-${randomHex(5)}@example.com`) =>
    m.get(RedemptionService).redeem(redeemBody({ voucherCode: code, email }) as RedeemVoucherDto, {
      ip: '198.51.100.2',
      userAgent: null,
      idempotencyKey: null,
    });
  async function redeemNew(product: string) {
    const [code] = await addCodes(m.db, product, [randomCode('RET')]);
    const email = `ret-${randomHex(5)}@example.com`;
    const { redemptionId } = await redeem(code, email);
    return { id: redemptionId, code, email };
  }
  const ids = async (table: string, list: string[]) =>
    (await m.db.query(`SELECT id FROM ${table} WHERE id = ANY($1::uuid[]) ORDER BY id`, [list])).map(
      (r: { id: string }) => r.id,
    );

  it('deletes audit rows after 1 year, e-mail logs after 2 years, redemptions after 7 years', async () => {
    const audit = async (daysAgo: number) =>
      (
        await m.db.query(
          `INSERT INTO security_audit_log (action, success, created_at) VALUES ('test.retention', true, now() - make_interval(days => $1)) RETURNING id`,
          [daysAgo],
        )
      )[0].id;
    const emailLog = async (daysAgo: number) =>
      (
        await m.db.query(
          `INSERT INTO email_logs (provider, recipient, subject, status, created_at)
           VALUES ('test', 'a@example.com', 's', 'sent', now() - make_interval(days => $1)) RETURNING id`,
          [daysAgo],
        )
      )[0].id;
    const oldAudit = await audit(366);
    const keptAudit = await audit(364);
    const oldLog = await emailLog(731);
    const keptLog = await emailLog(729);

    const proPlus = await productId(m.db, PRODUCTS.proPlusWindows);
    const keyId = await addLicenseKey(m.db, proPlus, 'RETENTION-KEY-1');
    const old = await redeemNew(proPlus);
    const kept = await redeemNew(await productId(m.db, PRODUCTS.homeBusinessMac));
    await moveRedemptions(m.db, `now() - interval '7 years 2 days'`, `r.id = $1`, [old.id]);
    await m.db.query(`UPDATE customers SET created_at = now() - interval '7 years 2 days' WHERE email = $1`, [
      old.email,
    ]);
    await moveRedemptions(m.db, `now() - interval '6 years'`, `r.id = $1`, [kept.id]);

    const result = await m.get(RetentionJob).run();
    const removed = {
      auditLogs: 1,
      emailLogs: 1,
      redemptions: 1,
      customers: 1,
      adminSessions: 0,
      adminAttempts: 0,
      webhookDeliveries: 0,
      customerAccessLinks: 0,
    };
    expect(result).toEqual(removed);
    expect(await ids('security_audit_log', [oldAudit, keptAudit])).toEqual([keptAudit]);
    expect(await ids('email_logs', [oldLog, keptLog])).toEqual([keptLog]);
    expect(await ids('redemptions', [old.id, kept.id])).toEqual([kept.id]);
    expect(await m.db.query(`SELECT id FROM customers WHERE email = $1`, [old.email])).toEqual([]);
    expect(await m.db.query(`SELECT id FROM customers WHERE email = $1`, [kept.email])).toHaveLength(1);
    // The code stays redeemed and the key stays used: nobody gets that key again.
    const [code] = await m.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [old.code]);
    expect(code.is_redeemed).toBe(true);
    expect(
      await m.db.query(`SELECT redemption_id FROM license_assignments WHERE license_key_id = $1`, [keyId]),
    ).toEqual([{ redemption_id: null }]);
    // The run is audited with what it removed.
    const [run] = await m.db.query(
      `SELECT details FROM security_audit_log WHERE action = 'system.retention' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(run.details).toEqual(removed);
  });

  it('deletes admin sessions that ended over 30 days ago, with their spent refresh tokens, and attempt counters after a day', async () => {
    const [user] = await m.db.query(
      `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, 'unused', 'unused', 'admin')
       RETURNING id`,
      [`ret_${randomHex(4)}`, `ret.${randomHex(4)}@example.com`],
    );
    const session = async (expiresDaysAgo: number, active = true) =>
      (
        await m.db.query(
          `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, expires_at, is_active)
           VALUES ($1, $2, $3, now() - make_interval(days => $4), $5) RETURNING id`,
          [user.id, randomHex(16), randomHex(16), expiresDaysAgo, active],
        )
      )[0].id as string;
    const ended = await session(31);
    const revoked = await session(40, false);
    const recent = await session(29, false);
    const live = await session(-1);
    await m.db.query(`INSERT INTO admin_session_spent_tokens (token_hash, session_id) VALUES ($1, $2), ($3, $4)`, [
      randomHex(16),
      ended,
      randomHex(16),
      recent,
    ]);
    const attempt = async (hoursAgo: number) =>
      (
        await m.db.query(
          `INSERT INTO admin_attempts (admin_user_id, kind, outcome, created_at)
           VALUES ($1, 'secret-check', 'failure', now() - make_interval(hours => $2)) RETURNING id`,
          [user.id, hoursAgo],
        )
      )[0].id as string;
    const oldAttempt = await attempt(25);
    const keptAttempt = await attempt(2);

    expect(await m.get(RetentionJob).run()).toMatchObject({ adminSessions: 2, adminAttempts: 1 });
    expect(await ids('admin_sessions', [ended, revoked, recent, live])).toEqual([recent, live].sort());
    expect(await ids('admin_attempts', [oldAttempt, keptAttempt])).toEqual([keptAttempt]);
    const spent = await m.db.query(
      `SELECT session_id FROM admin_session_spent_tokens WHERE session_id = ANY($1::uuid[])`,
      [[ended, recent]],
    );
    expect(spent).toEqual([{ session_id: recent }]);
  });

  it('never deletes a customer who redeems at that moment, nor their redemption (purge and redemptions run concurrently)', async () => {
    const mac = await productId(m.db, PRODUCTS.homeBusinessMac);
    const retention = m.get(RedemptionRetentionRepository);
    for (let round = 0; round < 15; round++) {
      // Old customers without a redemption: each is a purge candidate while redeeming.
      const emails = Array.from({ length: 8 }, () => `race-${randomHex(5)}@example.com`);
      await m.db.query(
        `INSERT INTO customers (email, first_name, last_name, created_at)
         SELECT e, 'Race', 'Test', now() - interval '7 years 2 days' FROM unnest($1::text[]) e`,
        [emails],
      );
      const codes = await addCodes(
        m.db,
        mac,
        emails.map(() => randomCode('RACE')),
      );
      const [, ...results] = await Promise.all([
        retention.deleteUnusedCustomers(m.config.redemptionRetentionDays, 1000),
        ...emails.map((email, i) => redeem(codes[i], email)),
      ]);
      expect(results.map((r) => r.success)).toEqual(emails.map(() => true));
      // Every redemption survived, with its customer.
      const rows = await m.db.query(
        `SELECT c.email FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
           JOIN customers c ON c.id = r.customer_id WHERE v.code = ANY($1)`,
        [codes],
      );
      expect(rows.map((r: { email: string }) => r.email).sort()).toEqual([...emails].sort());
    }
  });

  it('refuses to delete a customer who has a redemption (no cascade to redemptions)', async () => {
    const r = await redeemNew(await productId(m.db, PRODUCTS.homeBusinessMac));
    await expect(m.db.query(`DELETE FROM customers WHERE email = $1`, [r.email])).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23503', constraint: 'redemptions_customer_id_fkey' }),
    });
    expect(await ids('redemptions', [r.id])).toEqual([r.id]);
  });
});
