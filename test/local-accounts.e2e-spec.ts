import { execFile } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { bearer, createAdminUser, createApiToken, tokenFor } from './helpers/auth';
import { SessionService } from '../backend/src/modules/auth/session.service';
import { BUILT_CLI } from './helpers/processes';

const run = promisify(execFile);
const INVALID_TOKEN = { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' };
const INVALID_REFRESH = { statusCode: 401, message: 'Invalid or expired refresh token', error: 'Unauthorized' };

/**
 * Issue 50 item 4 (docs/auth.md "Local accounts and deactivation"): once LOCAL_LOGIN=false, the sessions of local
 * accounts (no single sign-on identity, not ADMIN_USERNAME) are refused at the next request, access and refresh alike;
 * an admin (the route) or an operator of the service (`npm run admin -- deactivate`) ends an account's sessions at once.
 */
describe('local accounts: LOCAL_LOGIN=false and deactivation', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const login = async (app: TestApp, username: string, password: string) => {
    const res = await app.http().post('/api/admin/login').send({ username, password }).expect(200);
    return res.body as { accessToken: string; refreshToken: string };
  };
  const me = (app: TestApp, accessToken: string) => app.http().get('/api/admin/me').set(bearer(accessToken));
  const refresh = (app: TestApp, refreshToken: string) => app.http().post('/api/admin/refresh').send({ refreshToken });

  it('LOCAL_LOGIN=false refuses local accounts’ live sessions; SSO accounts and ADMIN_USERNAME keep theirs', async () => {
    const local = await createAdminUser(t, { role: 'operator' });
    const linked = await createAdminUser(t, { role: 'operator' });
    await t.db.query(
      `UPDATE admin_users SET oidc_issuer = 'https://idp.example.com', oidc_subject = $2 WHERE id = $1`,
      [linked.id, `sub-${linked.id}`],
    );
    // Signed in while password sign-in was on.
    const sessions = {
      local: await login(t, local.username, local.password),
      linked: await login(t, linked.username, linked.password),
      admin: await login(t, 'admin', TEST_ADMIN_PASSWORD),
    };

    // The switch: an instance of the same service started with LOCAL_LOGIN=false (the provider is never called here).
    const off = await startTestApp(
      {
        OIDC_ISSUER: 'http://127.0.0.1:9/',
        OIDC_CLIENT_ID: 'console',
        OIDC_CLIENT_SECRET: 'a-client-secret-for-the-test',
        OIDC_ROLES: 'admin:ovr-admins,operator:ovr-operators',
        LOCAL_LOGIN: 'false',
      },
      { database: t.database },
    );
    try {
      expect((await me(off, sessions.local.accessToken)).body).toEqual(INVALID_TOKEN);
      expect((await refresh(off, sessions.local.refreshToken)).body).toEqual(INVALID_REFRESH);
      // The socket gateway's re-check drops it too (the same rule).
      const [{ id: localSession }] = await off.db.query(
        `SELECT id FROM admin_sessions WHERE admin_user_id = $1 AND is_active`,
        [local.id],
      );
      expect(await off.app.get(SessionService).liveSessionIds([localSession])).toEqual([]);

      for (const kept of [sessions.linked, sessions.admin]) {
        await me(off, kept.accessToken).expect(200);
        const rotated = await refresh(off, kept.refreshToken).expect(200);
        await me(off, rotated.body.accessToken).expect(200);
      }
    } finally {
      await off.close();
    }
  });

  describe('deactivation', () => {
    let admin: Record<string, string>;
    let adminId: string;
    beforeAll(async () => {
      const user = await createAdminUser(t, { role: 'admin' });
      adminId = user.id;
      admin = bearer((await login(t, user.username, user.password)).accessToken);
    });

    /** An account with a live session and an API token of its own, both working. */
    async function liveAccount(role = 'operator') {
      const user = await createAdminUser(t, { role });
      const session = await login(t, user.username, user.password);
      const apiToken = (await createApiToken(t, user.id, ['dashboard.view'])).token;
      await me(t, session.accessToken).expect(200);
      await t.http().get('/api/products').set(bearer(apiToken)).expect(200);
      return { user, session, apiToken };
    }

    async function expectShutOut({ user, session, apiToken }: Awaited<ReturnType<typeof liveAccount>>) {
      expect((await me(t, session.accessToken)).body).toEqual(INVALID_TOKEN);
      expect((await refresh(t, session.refreshToken)).body).toEqual(INVALID_REFRESH);
      expect((await t.http().get('/api/products').set(bearer(apiToken))).status).toBe(401);
      await t.http().post('/api/admin/login').send({ username: user.username, password: user.password }).expect(401);
    }

    it('POST /api/admin/users/{id}/deactivate ends the sessions and API tokens at once, audited', async () => {
      const account = await liveAccount();
      const second = await login(t, account.user.username, account.user.password);
      const res = await t.http().post(`/api/admin/users/${account.user.id}/deactivate`).set(admin).expect(200);
      expect(res.body).toEqual({
        id: account.user.id,
        username: account.user.username,
        isActive: false,
        sessionsEnded: 2,
      });
      await expectShutOut(account);
      await me(t, second.accessToken).expect(401);
      const audit = await t.db.query(
        `SELECT admin_user_id, success, details FROM security_audit_log WHERE action = 'admin-user.deactivate' AND resource_id = $1`,
        [account.user.id],
      );
      expect(audit).toEqual([
        { admin_user_id: adminId, success: true, details: { username: account.user.username, sessionsEnded: 2 } },
      ]);
    });

    it('refuses the caller’s own account, an unknown one, and callers without the permission; nothing changes', async () => {
      const account = await liveAccount();
      const own = await t.http().post(`/api/admin/users/${adminId}/deactivate`).set(admin).expect(400);
      expect(own.body.message).toBe('You cannot deactivate your own account');
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await t.http().post(`/api/admin/users/${id}/deactivate`).set(admin).expect(404);
        expect(res.body).toEqual({ statusCode: 404, message: 'User not found', error: 'Not Found' });
      }
      for (const role of ['operator', 'shop-manager']) {
        await t
          .http()
          .post(`/api/admin/users/${account.user.id}/deactivate`)
          .set(bearer(await tokenFor(t, role)))
          .expect(403);
      }
      await me(t, account.session.accessToken).expect(200);
      const rows = await t.db.query(`SELECT is_active FROM admin_users WHERE id = ANY($1::uuid[])`, [
        [adminId, account.user.id],
      ]);
      expect(rows).toEqual([{ is_active: true }, { is_active: true }]);
    });

    it('npm run admin -- deactivate --username X does the same; activate undoes it', async () => {
      const account = await liveAccount('admin');
      const deactivated = await cli(['deactivate', '--username', account.user.username]);
      expect(deactivated.stdout).toContain(`Deactivated "${account.user.username}": 1 session(s) ended`);
      await expectShutOut(account);
      const [row] = await t.db.query(
        `SELECT details FROM security_audit_log WHERE action = 'cli.user-deactivate' AND resource_id = $1`,
        [account.user.id],
      );
      expect(row.details).toEqual({ username: account.user.username, sessionsEnded: 1, via: 'cli' });

      await cli(['activate', '--username', account.user.username]);
      const again = await login(t, account.user.username, account.user.password);
      await me(t, again.accessToken).expect(200);
      // An unknown name: exit 1, saying so.
      await expect(cli(['deactivate', '--username', 'nobody_here'])).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('No user named "nobody_here"'),
      });
    });

    /** The built CLI (`npm run admin -- …`), as an operator of the service runs it, on the suite's database. */
    async function cli(args: string[]) {
      const dataDir = mkdtempSync(join(tmpdir(), 'ovr-cli-'));
      try {
        return await run(process.execPath, [BUILT_CLI, ...args], {
          env: {
            ...process.env,
            NODE_ENV: 'test',
            DATA_DIR: dataDir,
            DATABASE_URL: t.database.url,
            JWT_SECRET: t.config.jwtSecret,
          },
        });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });
});
