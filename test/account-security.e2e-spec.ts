import { createHash } from 'crypto';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, fixTotpClock, TestAdmin } from './helpers/auth';

/** Issue 16: two-factor recovery codes and the own-sessions API behind the console's Security screen. */
describe('Account security: recovery codes and sessions', () => {
  let t: TestApp;
  let ipCounter = 0;

  beforeAll(async () => {
    // Each caller speaks from its own address, so the per-IP failed-login block never spills between tests.
    t = await startTestApp({ TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  const newIp = () => `203.0.113.${++ipCounter}`;
  const TOO_MANY = 'Too many failed attempts. Please wait 15 minutes and try again.';

  function login(body: Record<string, unknown>, ip = newIp(), userAgent = 'security-e2e') {
    return t.http().post('/api/admin/login').set('X-Forwarded-For', ip).set('User-Agent', userAgent).send(body);
  }

  async function signIn(user: TestAdmin, ip = newIp(), userAgent = 'security-e2e') {
    const res = await login({ username: user.username, password: user.password }, ip, userAgent).expect(200);
    return res.body as { accessToken: string; refreshToken: string };
  }

  async function auditRows(action: string, adminUserId: string) {
    return t.db.query(
      `SELECT success, details, ip_address FROM security_audit_log WHERE action = $1 AND admin_user_id = $2 ORDER BY created_at, id`,
      [action, adminUserId],
    );
  }

  // The server's clock stands still in one 30 s step for each test: codes of the steps around it are exact.
  let codeAt: (secret: string, steps: number) => string;
  beforeEach(() => {
    ({ codeAt } = fixTotpClock(t));
  });
  afterEach(() => jest.restoreAllMocks());

  /** A user with two-factor on (enabled with the code of the previous step) and the recovery codes it got. */
  async function enrolled() {
    const user = await createAdminUser(t);
    const { accessToken } = await signIn(user);
    const auth = bearer(accessToken);
    const setup = await t
      .http()
      .post('/api/admin/2fa/setup')
      .set(auth)
      .send({ currentPassword: user.password })
      .expect(200);
    const secret = setup.body.secret as string;
    const enable = await t
      .http()
      .post('/api/admin/2fa/enable')
      .set(auth)
      .send({ code: codeAt(secret, -1) })
      .expect(200);
    return { user, auth, secret, recoveryCodes: enable.body.recoveryCodes as string[], enableBody: enable.body };
  }

  describe('recovery codes', () => {
    it('enable answers ten distinct codes, stored only as their SHA-256, and audits how many were issued', async () => {
      const { user, recoveryCodes, enableBody } = await enrolled();
      expect(enableBody).toEqual({ twoFactorEnabled: true, recoveryCodes: expect.any(Array) });
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      for (const code of recoveryCodes) expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
      const rows: Array<{ code_hash: string; used_at: Date | null }> = await t.db.query(
        `SELECT code_hash, used_at FROM admin_recovery_codes WHERE admin_user_id = $1`,
        [user.id],
      );
      const sha256 = (code: string) => createHash('sha256').update(code.replace(/-/g, '')).digest('hex');
      expect(rows.map((r) => r.code_hash).sort()).toEqual(recoveryCodes.map(sha256).sort());
      expect(rows.every((r) => r.used_at === null)).toBe(true);
      const stored = JSON.stringify(
        await t.db.query(`SELECT * FROM admin_recovery_codes WHERE admin_user_id = $1`, [user.id]),
      );
      for (const code of recoveryCodes) expect(stored).not.toContain(code.replace(/-/g, ''));
      const [audit] = await auditRows('2fa.enable', user.id);
      expect(audit).toMatchObject({ success: true, details: { recoveryCodes: 10 } });
    });

    it('a recovery code signs in once in place of the 6-digit code (case, spaces and hyphens ignored); each use is audited', async () => {
      const { user, recoveryCodes } = await enrolled();
      const creds = { username: user.username, password: user.password };
      expect((await login(creds).expect(200)).body).toEqual({ requiresTwoFactor: true });

      const typed = ` ${recoveryCodes[0].toLowerCase().replace(/-/g, ' ')} `;
      const ip = newIp();
      const ok = await login({ ...creds, recoveryCode: typed }, ip).expect(200);
      expect(ok.body).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        requiresTwoFactor: false,
      });
      await t.http().get('/api/admin/me').set(bearer(ok.body.accessToken)).expect(200);

      const reused = await login({ ...creds, recoveryCode: recoveryCodes[0] }).expect(401);
      expect(reused.body).toEqual({ statusCode: 401, message: 'Invalid recovery code', error: 'Unauthorized' });
      await login({ ...creds, recoveryCode: 'AAAA-BBBB-CCCC-DDDD' }).expect(401);
      // Another user's code is no code of this one.
      const other = await enrolled();
      await login({ ...creds, recoveryCode: other.recoveryCodes[0] }).expect(401);

      const uses = await auditRows('login.recovery-code', user.id);
      expect(uses.map((r: { success: boolean }) => r.success)).toEqual([true, false, false, false]);
      expect(uses[0]).toMatchObject({ ip_address: ip, details: { recoveryCodesLeft: 9 } });
      expect(uses[1].details).toMatchObject({ reason: 'invalid or used recovery code' });
      const [success] = await auditRows('login.success', user.id).then((rows) => rows.slice(-1));
      expect(success.details).toMatchObject({ twoFactor: true, recoveryCode: true });
      const [{ used }] = await t.db.query(
        `SELECT count(*)::int AS used FROM admin_recovery_codes WHERE admin_user_id = $1 AND used_at IS NOT NULL`,
        [user.id],
      );
      expect(used).toBe(1);
    });

    it('the same code sent twice at once signs in exactly once', async () => {
      const { user, recoveryCodes } = await enrolled();
      const creds = { username: user.username, password: user.password, recoveryCode: recoveryCodes[3] };
      const statuses = (await Promise.all([login(creds), login(creds), login(creds)])).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 401, 401]);
    });

    it('regeneration needs a current code, audits, and the old set stops working', async () => {
      const { user, auth, secret, recoveryCodes } = await enrolled();
      const regenerate = (code: string) => t.http().post('/api/admin/2fa/recovery-codes').set(auth).send({ code });
      expect((await regenerate('12ab56').expect(400)).body.message).toBe('Two-factor code must be 6 digits');
      expect((await regenerate(codeAt(secret, 5)).expect(400)).body.message).toBe('Invalid two-factor code');
      const fresh = (await regenerate(codeAt(secret, 0)).expect(200)).body;
      expect(fresh).toEqual({ recoveryCodes: expect.any(Array) });
      expect(fresh.recoveryCodes).toHaveLength(10);
      expect(fresh.recoveryCodes.some((c: string) => recoveryCodes.includes(c))).toBe(false);

      const creds = { username: user.username, password: user.password };
      await login({ ...creds, recoveryCode: recoveryCodes[1] }).expect(401);
      await login({ ...creds, recoveryCode: fresh.recoveryCodes[1] }).expect(200);
      expect(
        (await auditRows('2fa.recovery-codes', user.id)).map((r: { success: boolean; details: unknown }) => [
          r.success,
          r.details,
        ]),
      ).toEqual([
        [false, { reason: 'invalid code' }],
        [true, { recoveryCodes: 10 }],
      ]);
    });

    it('regeneration without two-factor is refused; disabling two-factor deletes the codes', async () => {
      const { user, auth, secret } = await enrolled();
      await t
        .http()
        .post('/api/admin/2fa/disable')
        .set(auth)
        .send({ code: codeAt(secret, 0) })
        .expect(200);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM admin_recovery_codes WHERE admin_user_id = $1`, [
        user.id,
      ]);
      expect(n).toBe(0);
      const res = await t
        .http()
        .post('/api/admin/2fa/recovery-codes')
        .set(auth)
        .send({ code: codeAt(secret, 1) })
        .expect(400);
      expect(res.body.message).toBe('Two-factor authentication is not enabled');
    });

    it('wrong recovery codes count as failed sign-ins: after 5 the account is locked (423), even for a right code', async () => {
      const { user, recoveryCodes } = await enrolled();
      const creds = { username: user.username, password: user.password };
      for (let i = 0; i < 5; i++) await login({ ...creds, recoveryCode: `WRNG-CODE-0000-000${i + 2}` }).expect(401);
      const locked = await login({ ...creds, recoveryCode: recoveryCodes[0] }).expect(423);
      expect(locked.body.message).toBe('Account temporarily locked. Try again later.');
      const [{ used }] = await t.db.query(
        `SELECT count(*)::int AS used FROM admin_recovery_codes WHERE admin_user_id = $1 AND used_at IS NOT NULL`,
        [user.id],
      );
      expect(used).toBe(0);
    });

    it('they share the 5-per-15-minutes budget of the 2FA calls (docs/product.md §18.5): then 429, and no code is spent', async () => {
      const { user, auth, recoveryCodes } = await enrolled();
      for (let i = 0; i < 3; i++) {
        await t.http().post('/api/admin/2fa/disable').set(auth).send({ code: '000000' }).expect(400);
      }
      const creds = { username: user.username, password: user.password };
      for (let i = 0; i < 2; i++) await login({ ...creds, recoveryCode: 'WRNG-CODE-0000-0002' }).expect(401);
      const limited = await login({ ...creds, recoveryCode: recoveryCodes[0] }).expect(429);
      expect(limited.body.message).toBe(TOO_MANY);
      await t.http().post('/api/admin/2fa/recovery-codes').set(auth).send({ code: '000000' }).expect(429);
      const [{ used }] = await t.db.query(
        `SELECT count(*)::int AS used FROM admin_recovery_codes WHERE admin_user_id = $1 AND used_at IS NOT NULL`,
        [user.id],
      );
      expect(used).toBe(0);
      const failures = await auditRows('login.recovery-code', user.id);
      expect(failures.map((r: { details: { reason: string } }) => r.details.reason)).toEqual([
        'invalid or used recovery code',
        'invalid or used recovery code',
        'too many failed attempts',
      ]);
    });

    it('a recovery code is no way around the password', async () => {
      const { user, recoveryCodes } = await enrolled();
      await login({ username: user.username, password: 'Wrong!Passw0rd#1', recoveryCode: recoveryCodes[0] }).expect(
        401,
      );
      const [{ used }] = await t.db.query(
        `SELECT count(*)::int AS used FROM admin_recovery_codes WHERE admin_user_id = $1 AND used_at IS NOT NULL`,
        [user.id],
      );
      expect(used).toBe(0);
    });
  });

  describe('own sessions', () => {
    const sessions = (auth: Record<string, string>) => t.http().get('/api/admin/sessions').set(auth);

    it("lists the caller's live sessions, this one marked current, with ip and user agent; nobody else's", async () => {
      const user = await createAdminUser(t);
      const laptop = await signIn(user, '203.0.113.200', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36');
      const phoneIp = newIp();
      const phone = await signIn(
        user,
        phoneIp,
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile/15E148 Safari/604.1',
      );
      const ended = await signIn(user);
      await t.http().post('/api/admin/logout').set(bearer(ended.accessToken)).expect(200);
      await signIn(await createAdminUser(t));

      const list = (await sessions(bearer(phone.accessToken)).expect(200)).body as Array<Record<string, unknown>>;
      expect(list).toHaveLength(2);
      for (const s of list) {
        expect(Object.keys(s).sort()).toEqual(['createdAt', 'current', 'id', 'ip', 'lastUsedAt', 'userAgent']);
      }
      const current = list.find((s) => s.current)!;
      expect(current).toMatchObject({ ip: phoneIp, userAgent: expect.stringContaining('iPhone') });
      expect(list.filter((s) => s.current)).toHaveLength(1);
      const other = list.find((s) => !s.current)!;
      expect(other).toMatchObject({ ip: '203.0.113.200', userAgent: expect.stringContaining('Chrome/140') });
      expect(new Date(other.createdAt as string).getTime()).toBeGreaterThan(Date.now() - 60_000);

      // The laptop sees the same two, itself current.
      const fromLaptop = (await sessions(bearer(laptop.accessToken)).expect(200)).body as Array<{
        id: string;
        current: boolean;
      }>;
      expect(fromLaptop.find((s) => s.current)!.id).toBe(other.id);
    });

    it("ends an own session: its access and refresh tokens are refused at once; another user's id is 404 and stays live", async () => {
      const user = await createAdminUser(t);
      const mine = await signIn(user);
      const lost = await signIn(user);
      const stranger = await createAdminUser(t);
      const theirs = await signIn(stranger);
      const [{ id: theirId }] = await t.db.query(`SELECT id FROM admin_sessions WHERE admin_user_id = $1`, [
        stranger.id,
      ]);
      const lostId = (
        (await sessions(bearer(lost.accessToken)).expect(200)).body as Array<{ id: string; current: boolean }>
      ).find((s) => s.current)!.id;

      const foreign = await t.http().delete(`/api/admin/sessions/${theirId}`).set(bearer(mine.accessToken)).expect(404);
      expect(foreign.body).toEqual({ statusCode: 404, message: 'Session not found', error: 'Not Found' });
      await t.http().get('/api/admin/me').set(bearer(theirs.accessToken)).expect(200);
      expect(
        (await t.http().delete('/api/admin/sessions/not-a-uuid').set(bearer(mine.accessToken)).expect(400)).body
          .message,
      ).toBe('Invalid session ID.');

      await t.http().get('/api/admin/me').set(bearer(lost.accessToken)).expect(200);
      expect(
        (await t.http().delete(`/api/admin/sessions/${lostId}`).set(bearer(mine.accessToken)).expect(200)).body,
      ).toEqual({ success: true });
      await t.http().get('/api/admin/me').set(bearer(lost.accessToken)).expect(401);
      await t.http().post('/api/admin/refresh').send({ refreshToken: lost.refreshToken }).expect(401);
      await t.http().delete(`/api/admin/sessions/${lostId}`).set(bearer(mine.accessToken)).expect(404);
      await t.http().get('/api/admin/me').set(bearer(mine.accessToken)).expect(200);

      const list = (await sessions(bearer(mine.accessToken)).expect(200)).body as Array<{ id: string }>;
      expect(list.map((s) => s.id)).not.toContain(lostId);
      expect(await auditRows('session.revoke', user.id)).toEqual([
        expect.objectContaining({ success: true, details: { current: false } }),
      ]);
    });

    it('revoke-others ends every other session of the caller and keeps this one', async () => {
      const user = await createAdminUser(t);
      const others = [await signIn(user), await signIn(user), await signIn(user)];
      const here = await signIn(user);
      const stranger = await signIn(await createAdminUser(t));

      const res = await t.http().post('/api/admin/sessions/revoke-others').set(bearer(here.accessToken)).expect(200);
      expect(res.body).toEqual({ revoked: 3 });
      for (const o of others) await t.http().get('/api/admin/me').set(bearer(o.accessToken)).expect(401);
      await t.http().get('/api/admin/me').set(bearer(here.accessToken)).expect(200);
      await t.http().get('/api/admin/me').set(bearer(stranger.accessToken)).expect(200);
      const list = (await sessions(bearer(here.accessToken)).expect(200)).body as Array<{ current: boolean }>;
      expect(list).toEqual([expect.objectContaining({ current: true })]);
      expect(await auditRows('session.revoke-others', user.id)).toEqual([
        expect.objectContaining({ success: true, details: { revoked: 3 } }),
      ]);
    });

    it('needs a signed-in caller', async () => {
      await t.http().get('/api/admin/sessions').expect(401);
      await t.http().post('/api/admin/sessions/revoke-others').expect(401);
    });
  });
});
