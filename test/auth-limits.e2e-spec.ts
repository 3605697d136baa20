import { Client } from 'pg';
import { generateSync } from 'otplib';
import { Clock } from '../backend/src/common/clock';
import { PG_ADMIN_URL } from './helpers/database';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, TestAdmin } from './helpers/auth';
import { productId, PRODUCTS } from './helpers/factories';
import { eventually } from './helpers/redemptions';

/** docs/product.md §18.5 "Stolen-token limits" and §18.6 "Test e-mails"; the health report without internal text. */
describe('Stolen-token limits (docs/product.md §18.5)', () => {
  let t: TestApp;
  let ipCounter = 0;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const TOO_MANY = 'Too many failed attempts. Please wait 15 minutes and try again.';
  const ip = () => `198.51.100.${++ipCounter}`;

  async function signIn(user: TestAdmin) {
    const res = await t
      .http()
      .post('/api/admin/login')
      .set('X-Forwarded-For', ip())
      .send({ username: user.username, password: user.password })
      .expect(200);
    return res.body as { accessToken: string; refreshToken: string };
  }

  async function signedIn() {
    const user = await createAdminUser(t);
    return { user, auth: bearer((await signIn(user)).accessToken) };
  }

  describe('5 wrong attempts per 15 minutes per user, then 429', () => {
    it('change-password: the 6th wrong current password is 429, and so is the right one after it', async () => {
      const { user, auth } = await signedIn();
      const change = (currentPassword: string) =>
        t
          .http()
          .post('/api/admin/change-password')
          .set(auth)
          .send({ currentPassword, newPassword: 'N3w!Password#2026x' });
      for (let i = 0; i < 5; i++) {
        expect((await change('Wrong!Passw0rd#1').expect(400)).body.message).toBe('Current password is incorrect');
      }
      expect((await change('Wrong!Passw0rd#1').expect(429)).body.message).toBe(TOO_MANY);
      expect((await change(user.password).expect(429)).body.message).toBe(TOO_MANY);
    });

    it('a right answer does not count: 4 wrong, 1 right, still room for wrong ones', async () => {
      const { user, auth } = await signedIn();
      const change = (currentPassword: string, newPassword: string) =>
        t.http().post('/api/admin/change-password').set(auth).send({ currentPassword, newPassword });
      for (let i = 0; i < 4; i++) await change('Wrong!Passw0rd#1', 'N3w!Password#2026x').expect(400);
      await change(user.password, 'N3w!Password#2026x').expect(200);
      await change('Wrong!Passw0rd#1', 'An0ther!Password#1').expect(400);
      await change('Wrong!Passw0rd#1', 'An0ther!Password#1').expect(429);
    });

    it('2FA setup needs the current password; a wrong one is counted, the 6th is 429', async () => {
      const { user, auth } = await signedIn();
      const setup = (body: Record<string, unknown>) => t.http().post('/api/admin/2fa/setup').set(auth).send(body);
      expect((await setup({}).expect(400)).body.message).toBe('Current password is required');
      for (let i = 0; i < 5; i++) {
        expect((await setup({ currentPassword: 'Wrong!Passw0rd#1' }).expect(400)).body.message).toBe(
          'Current password is incorrect',
        );
      }
      expect((await setup({ currentPassword: user.password }).expect(429)).body.message).toBe(TOO_MANY);
      const [row] = await t.db.query(`SELECT two_factor_secret FROM admin_users WHERE id = $1`, [user.id]);
      expect(row.two_factor_secret).toBeNull();
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM security_audit_log WHERE action = '2fa.setup' AND admin_user_id = $1 AND NOT success`,
        [user.id],
      );
      expect(n).toBe(5);
    });

    it('2FA enable: wrong codes count, the 6th attempt is 429', async () => {
      const { user, auth } = await signedIn();
      const setup = await t
        .http()
        .post('/api/admin/2fa/setup')
        .set(auth)
        .send({ currentPassword: user.password })
        .expect(200);
      const secret = setup.body.secret as string;
      const wrong = generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 10 * 30 });
      for (let i = 0; i < 5; i++) {
        await t.http().post('/api/admin/2fa/enable').set(auth).send({ code: wrong }).expect(400);
      }
      const res = await t
        .http()
        .post('/api/admin/2fa/enable')
        .set(auth)
        .send({ code: generateSync({ secret }) })
        .expect(429);
      expect(res.body.message).toBe(TOO_MANY);
    });

    it('2FA disable: wrong codes count, the 6th attempt is 429; the counter is shared with change-password', async () => {
      const { user, auth } = await signedIn();
      await t.db.query(
        `UPDATE admin_users SET two_factor_enabled = true, two_factor_secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' WHERE id = $1`,
        [user.id],
      );
      for (let i = 0; i < 3; i++) {
        await t.http().post('/api/admin/2fa/disable').set(auth).send({ code: '000000' }).expect(400);
      }
      for (let i = 0; i < 2; i++) {
        await t
          .http()
          .post('/api/admin/change-password')
          .set(auth)
          .send({ currentPassword: 'Wrong!Passw0rd#1', newPassword: 'N3w!Password#2026x' })
          .expect(400);
      }
      const res = await t.http().post('/api/admin/2fa/disable').set(auth).send({ code: '000000' }).expect(429);
      expect(res.body.message).toBe(TOO_MANY);
    });

    it('holds for parallel guesses (the count is settled in PostgreSQL)', async () => {
      const { auth } = await signedIn();
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          t
            .http()
            .post('/api/admin/change-password')
            .set(auth)
            .send({ currentPassword: 'Wrong!Passw0rd#1', newPassword: 'N3w!Password#2026x' }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 400)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    });
  });

  describe('refresh-token family and SESSION_MAX_HOURS', () => {
    const refresh = (refreshToken: string) => t.http().post('/api/admin/refresh').send({ refreshToken });

    it('reusing ANY earlier refresh token of the session revokes it, not only the previous one', async () => {
      const user = await createAdminUser(t);
      const first = await signIn(user);
      const second = (await refresh(first.refreshToken).expect(200)).body;
      const third = (await refresh(second.refreshToken).expect(200)).body;
      const fourth = (await refresh(third.refreshToken).expect(200)).body;
      // The first token is three rotations old.
      await refresh(first.refreshToken).expect(401);
      await refresh(fourth.refreshToken).expect(401);
      await t.http().get('/api/admin/me').set(bearer(fourth.accessToken)).expect(401);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM security_audit_log WHERE action = 'session.refresh-reuse' AND admin_user_id = $1`,
        [user.id],
      );
      expect(n).toBe(1);
    });

    it('simultaneous refreshes with one token: exactly one succeeds, and the others, presenting a spent token, end the session', async () => {
      const user = await createAdminUser(t);
      const first = await signIn(user);
      const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(first.refreshToken)));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 401, 401, 401, 401]);
      for (const lost of answers.filter((res) => res.status === 401)) {
        expect(lost.body.message).toBe('Invalid or expired refresh token');
      }
      const winner = answers.find((res) => res.status === 200)!.body as { accessToken: string; refreshToken: string };
      expect(winner.refreshToken).not.toBe(first.refreshToken);

      // docs/product.md §18.5: a spent token of the family came back, so the session is revoked, the winner's new tokens with it.
      const [session] = await t.db.query(`SELECT is_active FROM admin_sessions WHERE admin_user_id = $1`, [user.id]);
      expect(session.is_active).toBe(false);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM security_audit_log WHERE action = 'session.refresh-reuse' AND admin_user_id = $1`,
        [user.id],
      );
      expect(n).toBeGreaterThanOrEqual(1);
      await t.http().get('/api/admin/me').set(bearer(winner.accessToken)).expect(401);
      await refresh(winner.refreshToken).expect(401);
      // The spent token stays in the family: it never starts a session again.
      const [{ spent }] = await t.db.query(
        `SELECT count(*)::int AS spent FROM admin_session_spent_tokens t JOIN admin_sessions s ON s.id = t.session_id WHERE s.admin_user_id = $1`,
        [user.id],
      );
      expect(spent).toBe(1);
      await refresh(first.refreshToken).expect(401);
    });

    it('ends a session SESSION_MAX_HOURS (720) after sign-in whatever the refreshes', async () => {
      expect(t.config.sessionMaxHours).toBe(720);
      const user = await createAdminUser(t);
      const [{ now }] = await t.db.query(`SELECT now() AS now`);
      const start = new Date(now).getTime();
      const clock = jest.spyOn(t.app.get(Clock), 'now');
      let tokens = await signIn(user);
      // Refreshed well within SESSION_TTL_HOURS (168) each time: sliding alone would keep it alive for ever.
      for (const hours of [100, 200, 300, 400, 500, 600, 700]) {
        clock.mockReturnValue(new Date(start + hours * 3600_000));
        tokens = (await refresh(tokens.refreshToken).expect(200)).body;
      }
      clock.mockReturnValue(new Date(start + 719 * 3600_000));
      tokens = (await refresh(tokens.refreshToken).expect(200)).body;
      clock.mockReturnValue(new Date(start + 721 * 3600_000));
      const res = await refresh(tokens.refreshToken).expect(401);
      expect(res.body.message).toBe('Invalid or expired refresh token');
    });
  });

  describe('test e-mails (docs/product.md §18.6)', () => {
    const send = (auth: Record<string, string>, product: string, to: string) =>
      t.http().post(`/api/products/${product}/test-email`).set(auth).send({ to });

    it('go only to staff addresses, at most 10 per user per hour', async () => {
      const { user, auth } = await signedIn();
      const colleague = await createAdminUser(t, { role: 'operator' });
      const product = await productId(t.db, PRODUCTS.proPlusWindows);
      const outsider = await send(auth, product, 'someone@example.org').expect(400);
      expect(outsider.body.message).toBe('Test e-mails can only be sent to the e-mail address of a staff account.');
      for (let i = 0; i < 5; i++) await send(auth, product, `${user.username}@example.com`).expect(200);
      for (let i = 0; i < 5; i++) {
        await send(auth, product, `${colleague.username.toUpperCase()}@EXAMPLE.COM`).expect(200);
      }
      const limited = await send(auth, product, `${user.username}@example.com`).expect(429);
      expect(limited.body.message).toBe('Too many test e-mails: at most 10 per hour. Please try again later.');
      // Per user: the colleague still may.
      const other = bearer((await signIn(colleague)).accessToken);
      await send(other, product, `${colleague.username}@example.com`).expect(200);
    });
  });
});

describe('GET /api/health reports a status per dependency, never internal error text', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const allowConnections = async (allow: boolean) => {
    const admin = new Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${t.database.name} ALLOW_CONNECTIONS ${allow}`);
      if (!allow) {
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
          [t.database.name],
        );
      }
    } finally {
      await admin.end();
    }
  };

  it('answers 200 with status only while the database is up', async () => {
    const res = await t.http().get('/api/health').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      info: { database: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' } },
    });
  });

  it('answers 503 with {status:"down"} and no driver message when the database is unreachable', async () => {
    await allowConnections(false);
    try {
      const res = await t.http().get('/api/health').expect(503);
      expect(res.body).toEqual({
        status: 'error',
        info: {},
        error: { database: { status: 'down' } },
        details: { database: { status: 'down' } },
      });
      expect(res.text).not.toContain(t.database.name);
      expect(res.text).not.toMatch(/terminat|connection|ECONN|timeout/i);
    } finally {
      // The database comes back, and so does the health (the pool reconnects): nothing is left for another test.
      await allowConnections(true);
      await eventually(async () => (await t.http().get('/api/health')).status === 200, 30_000, 'health back to 200');
    }
  });
});
