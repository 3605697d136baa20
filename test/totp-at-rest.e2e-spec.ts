import { execFile } from 'child_process';
import { promisify } from 'util';
import { DataCipher } from '../backend/src/config/data-cipher';
import { runMigrations } from '../backend/src/database/migrate';
import { sealKeysStoredInClear } from '../backend/src/keys-at-rest';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, fixTotpClock } from './helpers/auth';
import { openKey } from './helpers/factories';

const run = promisify(execFile);

/**
 * Staff TOTP secrets sealed under DATA_KEY like licence keys (docs/product.md §13.3, docs/security.md): a database dump holds
 * none, sign-in with a code still works, and a secret left in clear by an earlier version is sealed at start-up.
 * (Rotation of TOTP secrets: test/keys-at-rest.e2e-spec.ts "rotate-data-key".)
 */
describe('TOTP secrets at rest', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const dump = async () =>
    (await run('pg_dump', ['--no-owner', t.database.url], { maxBuffer: 64 * 1024 * 1024 })).stdout;
  afterEach(() => jest.restoreAllMocks());
  const login = (body: Record<string, string>) => t.http().post('/api/admin/login').send(body);

  it('are sealed at enrolment: a pg_dump holds none, and sign-in with a code still works', async () => {
    const { codeAt } = fixTotpClock(t);
    const user = await createAdminUser(t);
    const access = bearer(
      (await login({ username: user.username, password: user.password }).expect(200)).body.accessToken,
    );
    const secret: string = (
      await t.http().post('/api/admin/2fa/setup').set(access).send({ currentPassword: user.password }).expect(200)
    ).body.secret;
    // Sealed from setup on, before enabling.
    const [pending] = await t.db.query(
      `SELECT two_factor_secret, two_factor_secret_ciphertext FROM admin_users WHERE id = $1`,
      [user.id],
    );
    expect(pending.two_factor_secret).toBeNull();
    expect(openKey(t.db, pending.two_factor_secret_ciphertext)).toBe(secret);
    await t
      .http()
      .post('/api/admin/2fa/enable')
      .set(access)
      .send({ code: codeAt(secret, 0) })
      .expect(200);

    const text = await dump();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(0, 16));

    expect((await login({ username: user.username, password: user.password }).expect(200)).body).toEqual({
      requiresTwoFactor: true,
    });
    const signedIn = await login({
      username: user.username,
      password: user.password,
      twoFactorCode: codeAt(secret, 1),
    }).expect(200);
    expect(signedIn.body.accessToken).toEqual(expect.any(String));
    await login({ username: user.username, password: user.password, twoFactorCode: codeAt(secret, 5) }).expect(401);
  });

  it('left in clear by an earlier version are sealed at start-up, and still sign in', async () => {
    const { codeAt } = fixTotpClock(t);
    const user = await createAdminUser(t);
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    await t.db.query(`UPDATE admin_users SET two_factor_secret = $2, two_factor_enabled = true WHERE id = $1`, [
      user.id,
      secret,
    ]);

    const sealed = await runMigrations(t.database.url, (ds) => sealKeysStoredInClear(ds, t.app.get(DataCipher)));
    expect(sealed).toEqual({
      licenseKeys: 0,
      productKeys: 0,
      webhookSecrets: 0,
      totpSecrets: 1,
      marketplaceSecrets: 0,
    });
    const [row] = await t.db.query(
      `SELECT two_factor_secret, two_factor_secret_ciphertext FROM admin_users WHERE id = $1`,
      [user.id],
    );
    expect(row.two_factor_secret).toBeNull();
    expect(openKey(t.db, row.two_factor_secret_ciphertext)).toBe(secret);
    expect(await dump()).not.toContain(secret);

    const signedIn = await login({
      username: user.username,
      password: user.password,
      twoFactorCode: codeAt(secret, 0),
    }).expect(200);
    expect(signedIn.body.accessToken).toEqual(expect.any(String));
  });
});
