import { JwtService } from '@nestjs/jwt';
import { createHash } from 'crypto';
import { hashPassword } from '../backend/src/modules/auth/password';
import { NEW_PASSWORD_PATTERN } from '../backend/src/modules/auth/password-policy';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { bearer, createAdminUser, fixTotpClock, issueToken } from './helpers/auth';
import { redeemBody } from './helpers/factories';
import { eventually } from './helpers/redemptions';

describe('Admin authentication', () => {
  let t: TestApp;
  let ipCounter = 0;

  beforeAll(async () => {
    // TRUST_PROXY lets each test speak from its own address (X-Forwarded-For), so the per-IP failed-login
    // block of one test never spills into another; the blocked-IP list is re-read every 300 ms.
    t = await startTestApp({ TRUST_PROXY: 'loopback', BLOCKED_IP_CACHE_MS: '300' });
  });
  afterAll(() => t.close());

  /** A fresh client address (TEST-NET-2) for each caller. */
  const newIp = () => `198.51.100.${++ipCounter}`;

  function login(body: Record<string, unknown>, ip: string) {
    return t.http().post('/api/admin/login').set('X-Forwarded-For', ip).set('User-Agent', 'auth-e2e').send(body);
  }

  async function auditRows(action: string, where: { adminUserId?: string; ip?: string } = {}) {
    return t.db.query(
      `SELECT * FROM security_audit_log WHERE action = $1 AND ($2::uuid IS NULL OR admin_user_id = $2) AND ($3::text IS NULL OR ip_address = $3)
       ORDER BY created_at`,
      [action, where.adminUserId ?? null, where.ip ?? null],
    );
  }

  describe('login, me, refresh, logout', () => {
    it('signs the bootstrap admin in, answers me, and audits the login with ip and user agent', async () => {
      const ip = newIp();
      const res = await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, ip).expect(200);
      expect(res.body).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        requiresTwoFactor: false,
      });

      const me = await t.http().get('/api/admin/me').set(bearer(res.body.accessToken)).expect(200);
      expect(me.body).toEqual({
        id: expect.any(String),
        username: 'admin',
        email: 'admin@localhost',
        role: 'admin',
        permissions: expect.arrayContaining(['dashboard.view', 'settings.access', 'admin.reset-operator']),
        twoFactorEnabled: false,
      });

      const [user] = await t.db.query(
        `SELECT last_login_at, failed_login_attempts FROM admin_users WHERE username = 'admin'`,
      );
      expect(user.last_login_at).not.toBeNull();
      expect(user.failed_login_attempts).toBe(0);

      const [session] = await t.db.query(`SELECT * FROM admin_sessions WHERE admin_user_id = $1 AND ip_address = $2`, [
        me.body.id,
        ip,
      ]);
      expect(session).toMatchObject({ is_active: true, user_agent: 'auth-e2e' });
      // Only the SHA-256 of the refresh token is stored.
      expect(session.refresh_token).toBe(createHash('sha256').update(res.body.refreshToken).digest('hex'));

      const [row] = await auditRows('login.success', { ip });
      expect(row).toMatchObject({
        admin_user_id: me.body.id,
        success: true,
        user_agent: 'auth-e2e',
        resource_id: session.id,
      });
    });

    it('answers wrong password and unknown user alike with 401, audited as failures', async () => {
      const ip = newIp();
      const wrong = await login({ username: 'admin', password: 'not-the-password' }, ip).expect(401);
      const unknown = await login({ username: 'nobody_here', password: 'whatever-password' }, ip).expect(401);
      expect(wrong.body).toEqual({ statusCode: 401, message: 'Invalid username or password', error: 'Unauthorized' });
      expect(unknown.body).toEqual(wrong.body);
      const rows = await auditRows('login.failure', { ip });
      expect(rows).toHaveLength(2);
      expect(rows.map((r: { success: boolean }) => r.success)).toEqual([false, false]);
      expect(rows[1].details).toMatchObject({ username: 'nobody_here' });
      // The failure counted against the real account only.
      const [admin] = await t.db.query(`SELECT failed_login_attempts FROM admin_users WHERE username = 'admin'`);
      expect(admin.failed_login_attempts).toBe(1);
      await t.db.query(`UPDATE admin_users SET failed_login_attempts = 0 WHERE username = 'admin'`);
    });

    it('validates the login body with the sign-in rules', async () => {
      const ip = newIp();
      const short = await login({ username: 'ab', password: 'long-enough-password' }, ip).expect(400);
      expect(short.body.message).toBe('Username must be 3-50 characters');
      const code = await login({ username: 'admin', password: TEST_ADMIN_PASSWORD, twoFactorCode: '12345' }, ip).expect(
        400,
      );
      expect(code.body.message).toBe('Two-factor code must be 6 digits');
      const pw = await login({ username: 'admin', password: 'short' }, ip).expect(400);
      expect(pw.body.message).toBe('Password must be 8-128 characters');
    });

    it('rotates the refresh token; reusing a spent one revokes the session', async () => {
      const ip = newIp();
      const first = (await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, ip).expect(200)).body;

      const second = (await t.http().post('/api/admin/refresh').send({ refreshToken: first.refreshToken }).expect(200))
        .body;
      expect(second).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        requiresTwoFactor: false,
      });
      expect(second.refreshToken).not.toBe(first.refreshToken);
      await t.http().get('/api/admin/me').set(bearer(second.accessToken)).expect(200);

      const third = (await t.http().post('/api/admin/refresh').send({ refreshToken: second.refreshToken }).expect(200))
        .body;
      await t.http().get('/api/admin/me').set(bearer(third.accessToken)).expect(200);

      // The spent second token comes back: theft signal, the whole session ends.
      const reuse = await t.http().post('/api/admin/refresh').send({ refreshToken: second.refreshToken }).expect(401);
      expect(reuse.body.message).toBe('Invalid or expired refresh token');
      await t.http().get('/api/admin/me').set(bearer(third.accessToken)).expect(401);
      await t.http().post('/api/admin/refresh').send({ refreshToken: third.refreshToken }).expect(401);
      expect(await auditRows('session.refresh-reuse')).toHaveLength(1);

      await t.http().post('/api/admin/refresh').send({ refreshToken: 'never-issued' }).expect(401);
      const empty = await t.http().post('/api/admin/refresh').send({}).expect(400);
      expect(empty.body.message).toBe('Refresh token is required');
    });

    it('logout revokes the session at once, access and refresh token alike', async () => {
      const ip = newIp();
      const tokens = (await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, ip).expect(200)).body;
      await t.http().post('/api/admin/logout').set(bearer(tokens.accessToken)).set('X-Forwarded-For', ip).expect(200);
      const after = await t.http().get('/api/admin/me').set(bearer(tokens.accessToken)).expect(401);
      expect(after.body.message).toBe('Invalid or expired token');
      await t.http().post('/api/admin/refresh').send({ refreshToken: tokens.refreshToken }).expect(401);
      const [row] = await auditRows('logout', { ip });
      expect(row.success).toBe(true);
    });

    it('refuses missing, expired, foreign, alg:none tokens and inactive users with 401', async () => {
      const none = await t.http().get('/api/admin/me').expect(401);
      expect(none.body).toEqual({ statusCode: 401, message: 'Authentication required', error: 'Unauthorized' });

      const user = await createAdminUser(t, { role: 'admin' });
      const { token, sessionId } = await issueToken(t, user.id);
      await t.http().get('/api/admin/me').set(bearer(token)).expect(200);

      const payload = { sub: user.id, sid: sessionId, typ: 'access' };
      const jwt = new JwtService();
      const expired = await jwt.signAsync(
        { ...payload, exp: Math.floor(Date.now() / 1000) - 60 },
        { secret: t.config.jwtSecret },
      );
      const foreign = await jwt.signAsync(payload, {
        secret: 'another-secret-that-is-32-bytes-long!!',
        expiresIn: '15m',
      });
      const hs512 = await jwt.signAsync(payload, { secret: t.config.jwtSecret, algorithm: 'HS512', expiresIn: '15m' });
      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const algNone = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...payload, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
      for (const bad of [expired, foreign, hs512, algNone, 'garbage']) {
        const res = await t.http().get('/api/admin/me').set(bearer(bad)).expect(401);
        expect(res.body.message).toBe('Invalid or expired token');
      }

      await t.db.query(`UPDATE admin_users SET is_active = false WHERE id = $1`, [user.id]);
      await t.http().get('/api/admin/me').set(bearer(token)).expect(401);
    });
  });

  describe('lockout', () => {
    it('locks after 5 failures (423 on the 6th, even with the right password) and releases after the window', async () => {
      const ip = newIp();
      const user = await createAdminUser(t, { role: 'operator' });
      for (let attempt = 1; attempt <= 5; attempt++) {
        await login({ username: user.username, password: 'wrong-password!' }, ip).expect(401);
      }
      const [locked] = await t.db.query(`SELECT failed_login_attempts, locked_until FROM admin_users WHERE id = $1`, [
        user.id,
      ]);
      expect(locked.failed_login_attempts).toBe(5);
      const minutes = (new Date(locked.locked_until).getTime() - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(14.5);
      expect(minutes).toBeLessThanOrEqual(15);

      const sixth = await login({ username: user.username, password: user.password }, ip).expect(423);
      expect(sixth.body).toEqual({
        statusCode: 423,
        message: 'Account temporarily locked. Try again later.',
        error: 'Locked',
      });
      expect(await auditRows('login.locked', { adminUserId: user.id })).toHaveLength(1);

      // The window runs out.
      await t.db.query(`UPDATE admin_users SET locked_until = now() - interval '1 second' WHERE id = $1`, [user.id]);
      await login({ username: user.username, password: user.password }, ip).expect(200);
      const [released] = await t.db.query(`SELECT failed_login_attempts, locked_until FROM admin_users WHERE id = $1`, [
        user.id,
      ]);
      expect(released).toEqual({ failed_login_attempts: 0, locked_until: null });
    });

    it('lets no more than 5 parallel guesses through', async () => {
      const ip = newIp();
      const user = await createAdminUser(t);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => login({ username: user.username, password: `wrong-password-${i}` }, ip)),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([401, 401, 401, 401, 401, 423, 423, 423]);
      const [row] = await t.db.query(`SELECT locked_until FROM admin_users WHERE id = $1`, [user.id]);
      expect(new Date(row.locked_until).getTime()).toBeGreaterThan(Date.now());
    });

    it('starts a fresh count once an expired lock is followed by another failure', async () => {
      const ip = newIp();
      const user = await createAdminUser(t);
      await t.db.query(
        `UPDATE admin_users SET failed_login_attempts = 5, locked_until = now() - interval '1 minute' WHERE id = $1`,
        [user.id],
      );
      await login({ username: user.username, password: 'wrong-password!' }, ip).expect(401);
      const [row] = await t.db.query(`SELECT failed_login_attempts, locked_until FROM admin_users WHERE id = $1`, [
        user.id,
      ]);
      expect(row).toEqual({ failed_login_attempts: 1, locked_until: null });
    });
  });

  describe('two-factor authentication', () => {
    // The server's clock stands still in one 30 s step for each test: codes of the steps around it are exact.
    let codeAt: (secret: string, steps: number) => string;
    beforeEach(() => {
      ({ codeAt } = fixTotpClock(t));
    });
    afterEach(() => jest.restoreAllMocks());

    async function enrol(ip: string) {
      const user = await createAdminUser(t);
      const tokens = (await login({ username: user.username, password: user.password }, ip).expect(200)).body;
      const setup = await t
        .http()
        .post('/api/admin/2fa/setup')
        .set(bearer(tokens.accessToken))
        .send({ currentPassword: user.password })
        .expect(200);
      expect(setup.body).toEqual({
        secret: expect.any(String),
        otpauthUrl: expect.any(String),
        qrCodeDataUrl: expect.any(String),
      });
      expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(setup.body.otpauthUrl).toContain(`otpauth://totp/`);
      expect(setup.body.otpauthUrl).toContain(`secret=${setup.body.secret}`);
      expect(setup.body.qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
      return { user, secret: setup.body.secret as string, accessToken: tokens.accessToken as string };
    }

    it('enrols, then asks for the code, accepts ±1 step once each and refuses wrong, replayed and far codes', async () => {
      const ip = newIp();
      const { user, secret, accessToken } = await enrol(ip);

      const wrongEnable = await t
        .http()
        .post('/api/admin/2fa/enable')
        .set(bearer(accessToken))
        .send({ code: codeAt(secret, 5) })
        .expect(400);
      expect(wrongEnable.body.message).toBe('Invalid two-factor code');
      await t
        .http()
        .post('/api/admin/2fa/enable')
        .set(bearer(accessToken))
        .send({ code: codeAt(secret, -1) })
        .expect(200);
      const me = await t.http().get('/api/admin/me').set(bearer(accessToken)).expect(200);
      expect(me.body.twoFactorEnabled).toBe(true);
      expect(await auditRows('2fa.enable', { adminUserId: user.id })).toHaveLength(2); // the wrong code, then success

      const creds = { username: user.username, password: user.password };
      const noCode = await login(creds, ip).expect(200);
      expect(noCode.body).toEqual({ requiresTwoFactor: true });
      const emptyCode = await login({ ...creds, twoFactorCode: '' }, ip).expect(200);
      expect(emptyCode.body).toEqual({ requiresTwoFactor: true });

      const wrong = await login({ ...creds, twoFactorCode: codeAt(secret, 5) }, ip).expect(401);
      expect(wrong.body.message).toBe('Invalid two-factor code');
      expect(await auditRows('login.2fa-failure', { adminUserId: user.id })).toHaveLength(1);

      // -1 was spent by enable: it and the far past are refused; the current step works once.
      await login({ ...creds, twoFactorCode: codeAt(secret, -1) }, ip).expect(401);
      const current = codeAt(secret, 0);
      const ok = await login({ ...creds, twoFactorCode: current }, ip).expect(200);
      expect(ok.body).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        requiresTwoFactor: false,
      });
      await login({ ...creds, twoFactorCode: current }, ip).expect(401); // replayed
      // +1 (clock drift) is accepted, +2 is not.
      await login({ ...creds, twoFactorCode: codeAt(secret, 2) }, ip).expect(401);
      await login({ ...creds, twoFactorCode: codeAt(secret, 1) }, ip).expect(200);
      const [row] = await t.db.query(`SELECT failed_login_attempts FROM admin_users WHERE id = $1`, [user.id]);
      expect(row.failed_login_attempts).toBe(0); // a success clears the count
    });

    it('accepts a code of the previous step at login, and disables only with a valid code', async () => {
      const ip = newIp();
      const { user, secret, accessToken } = await enrol(ip);
      await t
        .http()
        .post('/api/admin/2fa/enable')
        .set(bearer(accessToken))
        .send({ code: codeAt(secret, -1) })
        .expect(200);
      await t.db.query(`UPDATE admin_users SET two_factor_last_step = NULL WHERE id = $1`, [user.id]);
      const creds = { username: user.username, password: user.password };
      await login({ ...creds, twoFactorCode: codeAt(secret, -2) }, ip).expect(401);
      await login({ ...creds, twoFactorCode: codeAt(secret, -1) }, ip).expect(200);

      const bad = await t
        .http()
        .post('/api/admin/2fa/disable')
        .set(bearer(accessToken))
        .send({ code: '12ab56' })
        .expect(400);
      expect(bad.body.message).toBe('Two-factor code must be 6 digits');
      await t
        .http()
        .post('/api/admin/2fa/disable')
        .set(bearer(accessToken))
        .send({ code: codeAt(secret, -1) })
        .expect(400);
      await t
        .http()
        .post('/api/admin/2fa/disable')
        .set(bearer(accessToken))
        .send({ code: codeAt(secret, 0) })
        .expect(200);
      const [row] = await t.db.query(`SELECT two_factor_enabled, two_factor_secret FROM admin_users WHERE id = $1`, [
        user.id,
      ]);
      expect(row).toEqual({ two_factor_enabled: false, two_factor_secret: null });
      expect(
        (await auditRows('2fa.disable', { adminUserId: user.id })).map((r: { success: boolean }) => r.success),
      ).toEqual([false, true]);
      await login(creds, ip)
        .expect(200)
        .expect((res) => expect(res.body.requiresTwoFactor).toBe(false));
    });
  });

  describe('account calls', () => {
    it("change-password applies the policy's rules and messages, then revokes the other sessions", async () => {
      const ip = newIp();
      const user = await createAdminUser(t, { role: 'operator' });
      const mine = (await login({ username: user.username, password: user.password }, ip).expect(200)).body.accessToken;
      const other = (await login({ username: user.username, password: user.password }, ip).expect(200)).body
        .accessToken;
      const change = (body: object) =>
        t.http().post('/api/admin/change-password').set(bearer(mine)).set('X-Forwarded-For', ip).send(body);

      const cases: [object, string][] = [
        [{ newPassword: 'N3w!Password-long' }, 'Current password is required'],
        [{ currentPassword: user.password, newPassword: 'Sh0rt!' }, 'Password must be at least 12 characters'],
        [
          { currentPassword: user.password, newPassword: 'nouppercase1!x' },
          'Password must contain uppercase, lowercase, number, and special character',
        ],
        [
          { currentPassword: user.password, newPassword: 'NoSpecialChar123' },
          'Password must contain uppercase, lowercase, number, and special character',
        ],
        [
          { currentPassword: user.password, newPassword: 'N3w!Password-long', confirmPassword: 'N3w!Password-lonG' },
          "Passwords don't match",
        ],
        [{ currentPassword: 'Wr0ng!Password#', newPassword: 'N3w!Password-long' }, 'Current password is incorrect'],
      ];
      for (const [body, message] of cases) {
        const res = await change(body).expect(400);
        expect(res.body.message).toBe(message);
      }
      await login({ username: user.username, password: user.password }, ip).expect(200); // nothing changed

      await change({
        currentPassword: user.password,
        newPassword: 'N3w!Password-long',
        confirmPassword: 'N3w!Password-long',
      }).expect(200);
      await t.http().get('/api/admin/me').set(bearer(mine)).expect(200);
      await t.http().get('/api/admin/me').set(bearer(other)).expect(401);
      await login({ username: user.username, password: user.password }, ip).expect(401);
      await login({ username: user.username, password: 'N3w!Password-long' }, ip).expect(200);
      const rows = await auditRows('password.change', { adminUserId: user.id });
      expect(rows.map((r: { success: boolean }) => r.success)).toEqual([false, true]);
    });

    it('reset-operator gives the operator a generated password that alone lets it in', async () => {
      const ip = newIp();
      const known = 'Kn0wn!Operator#Pw';
      const { hash, salt } = await hashPassword(known);
      await t.db.query(`UPDATE admin_users SET password_hash = $1, salt = $2 WHERE username = 'operator'`, [
        hash,
        salt,
      ]);
      const opSession = (await login({ username: 'operator', password: known }, ip).expect(200)).body.accessToken;

      const adminToken = (await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, ip).expect(200)).body
        .accessToken;
      const res = await t
        .http()
        .post('/api/admin/reset-operator')
        .set(bearer(adminToken))
        .set('X-Forwarded-For', ip)
        .expect(200);
      expect(res.body).toEqual({ username: 'operator', newPassword: expect.any(String) });
      expect(res.body.newPassword.length).toBeGreaterThanOrEqual(12);
      expect(res.body.newPassword).toMatch(NEW_PASSWORD_PATTERN);

      await t.http().get('/api/admin/me').set(bearer(opSession)).expect(401);
      await login({ username: 'operator', password: known }, ip).expect(401);
      const op = await login({ username: 'operator', password: res.body.newPassword }, ip).expect(200);
      const me = await t.http().get('/api/admin/me').set(bearer(op.body.accessToken)).expect(200);
      expect(me.body.role).toBe('operator');
      expect(me.body.permissions).not.toContain('admin.reset-operator');
      const [row] = await auditRows('operator.reset-password', { ip });
      expect(row).toMatchObject({ success: true, resource_id: me.body.id });
    });

    it('create-shop-manager creates a dashboard-only account with a generated password', async () => {
      const ip = newIp();
      const adminToken = (await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, ip).expect(200)).body
        .accessToken;
      const res = await t.http().post('/api/admin/create-shop-manager').set(bearer(adminToken)).send({}).expect(201);
      expect(res.body).toEqual({ username: 'shop_manager', password: expect.stringMatching(NEW_PASSWORD_PATTERN) });
      const dup = await t.http().post('/api/admin/create-shop-manager').set(bearer(adminToken)).send({}).expect(409);
      expect(dup.body.message).toBe('A user with this username or e-mail already exists');

      const shop = await login({ username: 'shop_manager', password: res.body.password }, ip).expect(200);
      const me = await t.http().get('/api/admin/me').set(bearer(shop.body.accessToken)).expect(200);
      expect(me.body).toMatchObject({
        username: 'shop_manager',
        role: 'shop-manager',
        permissions: ['dashboard.view'],
      });
      expect(await auditRows('admin-user.create')).toHaveLength(1);
    });

    it('audits a permission denial', async () => {
      const user = await createAdminUser(t, { role: 'operator' });
      const { token } = await issueToken(t, user.id);
      const res = await t.http().post('/api/admin/reset-operator').set(bearer(token)).expect(403);
      expect(res.body).toEqual({
        statusCode: 403,
        message: 'You do not have permission to perform this action',
        error: 'Forbidden',
      });
      const [row] = await auditRows('permission.denied', { adminUserId: user.id });
      expect(row).toMatchObject({ success: false, resource: 'POST /api/admin/reset-operator' });
      expect(row.details).toMatchObject({ role: 'operator', missing: ['admin.reset-operator'] });
    });
  });

  describe('blocked IPs', () => {
    it('refuses every route, public ones included, from an active unexpired entry', async () => {
      const blocked = newIp();
      const expired = newIp();
      const inactive = newIp();
      await t.db.query(
        `INSERT INTO blocked_ips (ip_address, reason, expires_at, is_active) VALUES
           ($1, 'test', now() + interval '1 hour', true), ($2, 'test', now() - interval '1 minute', true), ($3, 'test', NULL, false)`,
        [blocked, expired, inactive],
      );
      // Once the cached list has been re-read (every 300 ms here), the address is refused.
      const res = await eventually(
        async () => {
          const answer = await t.http().get('/api/health').set('X-Forwarded-For', blocked);
          return answer.status === 403 ? answer : undefined;
        },
        15_000,
        'the block to apply',
      );
      expect(res.body).toEqual({
        statusCode: 403,
        message: 'Access from your IP address has been blocked',
        error: 'Forbidden',
      });
      await t
        .http()
        .post('/api/redeem-voucher')
        .set('X-Forwarded-For', blocked)
        .send(redeemBody({ voucherCode: 'ANY-CODE' }))
        .expect(403);
      await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, blocked).expect(403);
      await t.http().get('/api/no-such-route').set('X-Forwarded-For', blocked).expect(403);
      await t.http().get('/api/no-such-route').set('X-Forwarded-For', newIp()).expect(404);
      for (const ip of [expired, inactive]) await t.http().get('/api/health').set('X-Forwarded-For', ip).expect(200);
      await t.http().get('/api/health').set('X-Forwarded-For', newIp()).expect(200);
    });

    it('blocks an IP for an hour after 20 failed logins within 10 minutes', async () => {
      const ip = newIp();
      for (let i = 1; i <= 20; i++) {
        await login({ username: `nobody_${i}`, password: 'wrong-password!' }, ip).expect(401);
      }
      const [row] = await t.db.query(`SELECT * FROM blocked_ips WHERE ip_address = $1`, [ip]);
      expect(row.is_active).toBe(true);
      const minutes = (new Date(row.expires_at).getTime() - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(59);
      expect(minutes).toBeLessThanOrEqual(60);
      await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, ip).expect(403);
      await t.http().get('/api/health').set('X-Forwarded-For', ip).expect(403);
      expect(await auditRows('ip.blocked', { ip })).toHaveLength(1);
      await login({ username: 'admin', password: TEST_ADMIN_PASSWORD }, newIp()).expect(200);
    });
  });
});
