import { RedemptionMailService } from '../backend/src/modules/mail/redemption-mail.service';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addLicenseKey, keyHash, licenseManagedProduct, productId, PRODUCTS } from './helpers/factories';
import { watchJobs } from './helpers/jobs';
import { emailStatus, eventually, keysAssignedTo, redeemNew } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

describe('Admin redemption actions', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let auth: Record<string, string>;
  let mac: string;

  const windowsProduct = (name: string) => licenseManagedProduct(t.db, name);

  const mailsTo = (email: string) => smtp.messages.filter((m) => m.to && JSON.stringify(m.to).includes(email));
  const assignmentsOf = (redemptionId: string) => keysAssignedTo(t, redemptionId);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url });
    auth = bearer(await tokenFor(t, 'admin'));
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  afterEach(() => jest.restoreAllMocks());

  describe('resend-email', () => {
    it('sets the e-mail pending, clears a stale claim and sends it again', async () => {
      const r = await redeemNew(t, mac);
      await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 'first e-mail');
      expect(mailsTo(r.email)).toHaveLength(1);
      await t.db.query(
        `UPDATE redemptions SET email_status = 'failed', email_locked_until = now() + interval '1 hour' WHERE id = $1`,
        [r.id],
      );

      const res = await t.http().post(`/api/redemptions/${r.id}/resend-email`).set(auth).expect(200);
      expect(res.body).toEqual({ success: true, message: 'Email queued for sending' });
      await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 'resent e-mail');
      expect(mailsTo(r.email)).toHaveLength(2);
      const [audit] = await t.db.query(
        `SELECT success FROM security_audit_log WHERE action = 'redemption.resend-email' AND resource_id = $1`,
        [r.id],
      );
      expect(audit.success).toBe(true);
    });

    it('answers 404 for unknown redemptions and 409 while a redemption waits for its licence', async () => {
      await t.http().post('/api/redemptions/00000000-0000-4000-8000-000000000000/resend-email').set(auth).expect(404);
      await t.http().post('/api/redemptions/nope/resend-email').set(auth).expect(404);
      const product = await windowsProduct('Resend Waiting');
      const r = await redeemNew(t, product);
      const res = await t.http().post(`/api/redemptions/${r.id}/resend-email`).set(auth).expect(409);
      expect(res.body.message).toBe(
        'This redemption has no license key yet. Assign one first; the e-mail is sent with it.',
      );
    });
  });

  describe('assign-license', () => {
    it('stores MANUAL_<key>, ends manual processing, updates the success page and sends the e-mail once', async () => {
      const jobs = watchJobs(t);
      const product = await windowsProduct('Manual Assign');
      const r = await redeemNew(t, product);
      expect((await t.http().get(`/api/success-token/${r.successToken}`).expect(200)).body.isManualProcessing).toBe(
        true,
      );

      const res = await t
        .http()
        .post(`/api/redemptions/${r.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: '  HAND-KEY-0001 ', downloadLink: ' https://dl.example.com/hand.exe ' })
        .expect(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: r.id,
          isManualProcessing: false,
          emailStatus: 'pending',
          assignedLicenseKey: { licenseKey: 'MANUAL_HAND-KEY-0001', downloadLink: 'https://dl.example.com/hand.exe' },
        }),
      );
      expect(await assignmentsOf(r.id)).toEqual([
        { license_key: 'MANUAL_HAND-KEY-0001', max_activations: 1, current_activations: 1 },
      ]);
      const view = await t.http().get(`/api/success-token/${r.successToken}`).expect(200);
      expect(view.body).toEqual(
        expect.objectContaining({
          isManualProcessing: false,
          licenseKey: 'HAND-KEY-0001',
          downloadLink: 'https://dl.example.com/hand.exe',
        }),
      );
      await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 'licence e-mail');
      const [mail] = mailsTo(r.email);
      expect(mail.html).toContain('Key: HAND-KEY-0001');
      expect(mail.html).not.toContain('MANUAL_');

      // The same key for a second redemption extends the one MANUAL_ row.
      const r2 = await redeemNew(t, product);
      await t
        .http()
        .post(`/api/redemptions/${r2.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: 'HAND-KEY-0001', downloadLink: 'https://dl.example.com/hand.exe' })
        .expect(200);
      expect(await assignmentsOf(r2.id)).toEqual([
        { license_key: 'MANUAL_HAND-KEY-0001', max_activations: 2, current_activations: 2 },
      ]);
      // MANUAL_ keys never show in the licence manager.
      const keys = await t.http().get('/api/license-keys').query({ productId: product }).set(auth).expect(200);
      expect(keys.body.licenseKeys).toEqual([]);
      expect(keys.body.summary.totalKeys).toBe(0);
      const [audit] = await t.db.query(
        `SELECT success FROM security_audit_log WHERE action = 'redemption.assign-license' AND resource_id = $1`,
        [r.id],
      );
      expect(audit.success).toBe(true);
      // Every job has finished and the sweep has run since: the second assignment sent nothing to the first customer.
      await jobs.settled();
      expect(mailsTo(r.email)).toHaveLength(1);
    });

    it('replaces the key of a redemption that had one; the old key stays used', async () => {
      const product = await windowsProduct('Reassign');
      await addLicenseKey(t.db, product, 'POOL-REASSIGN-1');
      const r = await redeemNew(t, product);
      const res = await t
        .http()
        .post(`/api/redemptions/${r.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: 'NEW-KEY-2', downloadLink: 'https://dl.example.com/new.exe' })
        .expect(200);
      expect(res.body.assignedLicenseKey).toEqual({
        licenseKey: 'MANUAL_NEW-KEY-2',
        downloadLink: 'https://dl.example.com/new.exe',
      });
      const [pool] = await t.db.query(`SELECT current_activations FROM license_keys WHERE key_hash = $1`, [
        keyHash(t.db, 'POOL-REASSIGN-1'),
      ]);
      expect(pool.current_activations).toBe(1);
    });

    it('refuses Mac products, bad input and unknown redemptions, changing nothing', async () => {
      const r = await redeemNew(t, mac);
      const macRes = await t
        .http()
        .post(`/api/redemptions/${r.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: 'MAC-KEY-1', downloadLink: 'https://dl.example.com/mac.pkg' })
        .expect(400);
      expect(macRes.body.message).toBe('Mac products are activated automatically and take no license key.');
      const missingKey = await t
        .http()
        .post(`/api/redemptions/${r.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: '   ', downloadLink: 'https://dl.example.com/x' })
        .expect(400);
      expect(missingKey.body.message).toBe('License key is required.');
      const missingLink = await t
        .http()
        .post(`/api/redemptions/${r.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: 'KEY-1' })
        .expect(400);
      expect(missingLink.body.message).toBe('Download link is required.');
      await t
        .http()
        .post('/api/redemptions/00000000-0000-4000-8000-000000000000/assign-license')
        .set(auth)
        .send({ licenseKey: 'KEY-1', downloadLink: 'https://dl.example.com/x' })
        .expect(404);
      expect(
        await t.db.query(`SELECT id FROM license_keys WHERE key_hash = ANY($1::bytea[])`, [
          [keyHash(t.db, 'MANUAL_MAC-KEY-1'), keyHash(t.db, 'MANUAL_KEY-1')],
        ]),
      ).toEqual([]);
    });
  });

  describe('bulk-assign-license', () => {
    it('skips redemptions that already have a key and Mac ones; the shared key counts the assignments', async () => {
      const product = await windowsProduct('Bulk Assign');
      await addLicenseKey(t.db, product, 'POOL-BULK-0001');
      const withKey = await redeemNew(t, product);
      const a = await redeemNew(t, product);
      const b = await redeemNew(t, product);
      const macOne = await redeemNew(t, mac);
      const res = await t
        .http()
        .post('/api/redemptions/bulk-assign-license')
        .set(auth)
        .send({
          redemptionIds: [withKey.id, a.id, b.id, macOne.id, a.id],
          licenseKey: ' VOLUME-KEY-77 ',
          downloadLink: 'https://dl.example.com/vol.exe',
        })
        .expect(200);
      expect(res.body).toEqual({ successCount: 2 });
      expect(await assignmentsOf(a.id)).toEqual([
        { license_key: 'MANUAL_VOLUME-KEY-77', max_activations: 2, current_activations: 2 },
      ]);
      expect(await assignmentsOf(withKey.id)).toEqual([
        { license_key: 'POOL-BULK-0001', max_activations: 1, current_activations: 1 },
      ]);
      expect(await assignmentsOf(macOne.id)).toEqual([]);
      await eventually(
        async () => mailsTo(a.email).length === 1 && mailsTo(b.email).length === 1,
        15_000,
        'bulk e-mails',
      );
      expect(mailsTo(a.email)[0].html).toContain('Key: VOLUME-KEY-77');

      const again = await t
        .http()
        .post('/api/redemptions/bulk-assign-license')
        .set(auth)
        .send({ redemptionIds: [a.id, b.id], licenseKey: 'OTHER-KEY', downloadLink: 'https://dl.example.com/vol.exe' })
        .expect(200);
      expect(again.body).toEqual({ successCount: 0 });
    });

    it('refuses an empty selection and bad ids', async () => {
      const body = { licenseKey: 'K-1', downloadLink: 'https://dl.example.com/x' };
      const empty = await t
        .http()
        .post('/api/redemptions/bulk-assign-license')
        .set(auth)
        .send({ ...body, redemptionIds: [] })
        .expect(400);
      expect(empty.body.message).toBe('Select at least one redemption');
      const bad = await t
        .http()
        .post('/api/redemptions/bulk-assign-license')
        .set(auth)
        .send({ ...body, redemptionIds: ['x'] })
        .expect(400);
      expect(bad.body.message).toBe('Invalid redemption id');
    });

    it('gives each redemption exactly one key under 20 concurrent overlapping bulk assignments', async () => {
      const product = await windowsProduct('Bulk Race');
      const targets = [];
      for (let i = 0; i < 10; i++) targets.push(await redeemNew(t, product));
      const ids = targets.map((r) => r.id);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t
            .http()
            .post('/api/redemptions/bulk-assign-license')
            .set(auth)
            .send({
              // Overlapping windows of the selection, in differing orders.
              redemptionIds: i % 2 ? ids.slice(i % 5, (i % 5) + 6).reverse() : ids.slice(i % 4, (i % 4) + 7),
              licenseKey: `RACE-KEY-${i % 3}`,
              downloadLink: 'https://dl.example.com/race.exe',
            }),
        ),
      );
      for (const res of results) expect(res.status).toBe(200);
      expect(results.reduce((sum, res) => sum + res.body.successCount, 0)).toBe(10);
      const perRedemption = await t.db.query(
        `SELECT a.redemption_id, count(*)::int AS n FROM license_assignments a WHERE a.redemption_id = ANY($1::uuid[]) GROUP BY 1`,
        [ids],
      );
      expect(perRedemption).toHaveLength(10);
      expect(perRedemption.every((row: { n: number }) => row.n === 1)).toBe(true);
      const keys = await t.db.query(
        `SELECT k.max_activations, k.current_activations, (SELECT count(*)::int FROM license_assignments a WHERE a.license_key_id = k.id) AS n
           FROM license_keys k WHERE k.product_id = $1`,
        [product],
      );
      for (const key of keys) {
        expect(key.current_activations).toBe(key.n);
        expect(key.max_activations).toBe(key.n);
      }
    });
  });

  describe('automatic assignment under concurrency', () => {
    it('never exceeds maxActivations with 20 concurrent redemptions and 20 concurrent fix-pending runs', async () => {
      const product = await windowsProduct('Pool Race');
      const volume = await addLicenseKey(t.db, product, 'POOL-VOLUME-7', { maxActivations: 7 });
      const inactive = await addLicenseKey(t.db, product, 'POOL-INACTIVE', { maxActivations: 50, active: false });
      const redeemed = await Promise.all(Array.from({ length: 20 }, () => redeemNew(t, product)));
      const [{ n: waiting }] = await t.db.query(
        `SELECT count(*)::int AS n FROM redemptions WHERE id = ANY($1::uuid[]) AND awaiting_license`,
        [redeemed.map((r) => r.id)],
      );
      expect(waiting).toBe(13);

      const single = await addLicenseKey(t.db, product, 'POOL-SINGLE-1');
      const second = await addLicenseKey(t.db, product, 'POOL-VOLUME-4', { maxActivations: 4 });
      const runs = await Promise.all(
        Array.from({ length: 20 }, () => t.http().post('/api/admin/fix-pending-emails').set(auth)),
      );
      for (const res of runs) expect(res.status).toBe(200);
      expect(runs.reduce((sum, res) => sum + res.body.assignedCount, 0)).toBe(5);

      const keys = await t.db.query(
        `SELECT k.id, k.max_activations, k.current_activations,
                (SELECT count(*)::int FROM license_assignments a WHERE a.license_key_id = k.id) AS n
           FROM license_keys k WHERE k.product_id = $1`,
        [product],
      );
      const byId = Object.fromEntries(keys.map((k: { id: string }) => [k.id, k]));
      expect(byId[volume]).toEqual(expect.objectContaining({ current_activations: 7, n: 7 }));
      expect(byId[single]).toEqual(expect.objectContaining({ current_activations: 1, n: 1 }));
      expect(byId[second]).toEqual(expect.objectContaining({ current_activations: 4, n: 4 }));
      expect(byId[inactive]).toEqual(expect.objectContaining({ current_activations: 0, n: 0 }));
      const perRedemption = await t.db.query(
        `SELECT count(*)::int AS n FROM license_assignments WHERE redemption_id = ANY($1::uuid[]) GROUP BY redemption_id HAVING count(*) > 1`,
        [redeemed.map((r) => r.id)],
      );
      expect(perRedemption).toEqual([]);
      const [{ n: stillWaiting }] = await t.db.query(
        `SELECT count(*)::int AS n FROM redemptions WHERE id = ANY($1::uuid[]) AND awaiting_license`,
        [redeemed.map((r) => r.id)],
      );
      expect(stillWaiting).toBe(8);
    });
  });

  describe('fix-pending-emails', () => {
    it('gives manual redemptions keys once keys are added; each e-mail goes out once', async () => {
      const jobs = watchJobs(t);
      const product = await windowsProduct('Fix Pending');
      const manual = [await redeemNew(t, product), await redeemNew(t, product), await redeemNew(t, product)];
      const first = await t.http().post('/api/admin/fix-pending-emails').set(auth).expect(200);
      expect(first.body.assignedCount).toBe(0);
      await jobs.settled();
      for (const r of manual) expect(mailsTo(r.email)).toHaveLength(0);

      await addLicenseKey(t.db, product, 'FIX-KEY-0001');
      await addLicenseKey(t.db, product, 'FIX-VOLUME-01', { maxActivations: 2 });
      const runs = await Promise.all([1, 2, 3].map(() => t.http().post('/api/admin/fix-pending-emails').set(auth)));
      expect(runs.reduce((sum, res) => sum + res.body.assignedCount, 0)).toBe(3);
      // Each run queues the pending e-mails it finds unclaimed after its own assignments: runs that overlap may
      // each queue the same one, and the workers' relay (new redemptions' e-mails) may have queued and claimed one
      // first, so no single total exists. What holds: no run finds more than the 3, and each e-mail goes out once
      // (the e-mail job's claim makes the rest no-ops).
      const queued = runs.map((res) => res.body.fixedCount as number);
      expect(Math.max(...queued)).toBeLessThanOrEqual(3);
      await eventually(
        async () => (await Promise.all(manual.map((r) => emailStatus(t, r.id)))).every((s) => s === 'sent'),
        15_000,
        'licence e-mails',
      );
      // Once more, and past the sweep interval: nothing is sent twice.
      const after = await t.http().post('/api/admin/fix-pending-emails').set(auth).expect(200);
      expect(after.body).toEqual({ assignedCount: 0, fixedCount: 0 });
      await jobs.settled({ count: 2 });
      for (const r of manual) {
        expect(mailsTo(r.email)).toHaveLength(1);
        expect(await assignmentsOf(r.id)).toHaveLength(1);
      }
      // A job delivered twice (a stalled Bull job, a duplicate enqueue) finds the e-mail already sent.
      expect(await t.app.get(RedemptionMailService).deliver(manual[0].id, 1, 3)).toBe('skipped');
      expect(mailsTo(manual[0].email)).toHaveLength(1);
      const [audit] = await t.db.query(
        `SELECT details FROM security_audit_log WHERE action = 'emails.fix-pending' ORDER BY created_at DESC LIMIT 1`,
      );
      expect(audit.details).toEqual({ fixedCount: 0, assignedCount: 0 });
    });

    it('re-queues pending e-mails whose job was lost', async () => {
      const jobs = watchJobs(t);
      const r = await redeemNew(t, mac);
      await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 'first e-mail');
      // Whatever e-mail earlier tests left in flight is sent: this one is then the only pending e-mail. Its last
      // attempt is "now", so the sweep (MAIL_SWEEP_AFTER_MS) leaves it to Fix Pending Emails.
      await jobs.settled();
      await t.db.query(`UPDATE redemptions SET email_status = 'pending', email_last_attempt_at = now() WHERE id = $1`, [
        r.id,
      ]);
      const res = await t.http().post('/api/admin/fix-pending-emails').set(auth).expect(200);
      expect(res.body).toEqual({ fixedCount: 1, assignedCount: 0 });
      await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 're-queued e-mail');
      expect(mailsTo(r.email)).toHaveLength(2);
    });
  });
});
