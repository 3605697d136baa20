import { JwtService } from '@nestjs/jwt';
import { randomBytes, createHash } from 'crypto';
import { generateSync } from 'otplib';
import { Clock } from '../../backend/src/common/clock';
import { hashPassword } from '../../backend/src/modules/auth/password';
import type { AccessTokenPayload } from '../../backend/src/modules/auth/access-token';
import { TestApp } from './app';
import { randomHex } from './seed';

export interface TestAdmin {
  id: string;
  username: string;
  password: string;
  role: string;
}

const DEFAULT_PASSWORD = 'Str0ng!Passw0rd#1';
/**
 * The default password's hash, made once per test file: a hash costs a few hundred milliseconds of CPU (scrypt at the
 * production cost, password.ts), and the users a test makes only need a password that signs them in. A user with a
 * password of its own gets a hash of its own.
 */
let defaultPasswordHash: ReturnType<typeof hashPassword> | undefined;

/** Inserts an admin user straight into the database (any role, including unknown ones). */
export async function createAdminUser(
  t: TestApp,
  opts: { role?: string; username?: string; password?: string } = {},
): Promise<TestAdmin> {
  const role = opts.role ?? 'admin';
  const username = opts.username ?? `${role.replace(/[^a-z]/g, '')}_${randomHex(4)}`;
  const password = opts.password ?? DEFAULT_PASSWORD;
  const { hash, salt } = await (password === DEFAULT_PASSWORD
    ? (defaultPasswordHash ??= hashPassword(DEFAULT_PASSWORD))
    : hashPassword(password));
  const [row] = await t.db.query(
    `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [username, `${username}@example.com`, hash, salt, role],
  );
  return { id: row.id, username, password, role };
}

/** An active session row and a signed access token for it, as a login would issue. */
export async function issueToken(t: TestApp, adminUserId: string): Promise<{ token: string; sessionId: string }> {
  const [session] = await t.db.query(
    `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, expires_at)
     VALUES ($1, $2, $3, now() + interval '7 days') RETURNING id`,
    [adminUserId, randomBytes(24).toString('base64url'), createHash('sha256').update(randomBytes(32)).digest('hex')],
  );
  const payload: AccessTokenPayload = { sub: adminUserId, sid: session.id, typ: 'access' };
  const token = await new JwtService().signAsync(payload, {
    secret: t.config.jwtSecret,
    algorithm: 'HS256',
    expiresIn: '15m',
  });
  return { token, sessionId: session.id };
}

/** A bearer token for a fresh user of the role: `auth(await tokenFor(t, 'operator'))`. */
export async function tokenFor(t: TestApp, role = 'admin'): Promise<string> {
  const user = await createAdminUser(t, { role });
  return (await issueToken(t, user.id)).token;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * Stops the app's Clock 1 s into the current 30 s TOTP step (until `jest.restoreAllMocks()`), and makes the codes an
 * authenticator app shows `steps` steps from then: test and server can no longer disagree on the step, however
 * long the test takes, so no test waits out the end of a step.
 */
export function fixTotpClock(t: TestApp): { now: number; codeAt: (secret: string, steps?: number) => string } {
  const now = Math.floor(Date.now() / 30_000) * 30_000 + 1000;
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  return { now, codeAt: (secret, steps = 0) => generateSync({ secret, epoch: Math.floor(now / 1000) + steps * 30 }) };
}

/** An API token of `createdBy` (an admin's id) with these permissions, stored as the API would store it. */
export async function createApiToken(
  t: TestApp,
  createdBy: string,
  permissions: string[],
): Promise<{ id: string; token: string }> {
  const token = `ovr_${randomBytes(32).toString('base64url')}`;
  const [row] = await t.db.query(
    `INSERT INTO api_tokens (name, token_hash, permissions, created_by, expires_at)
     VALUES ($1, $2, $3, $4, now() + interval '1 day') RETURNING id`,
    [
      `test ${permissions.join(' ')}`.slice(0, 100),
      createHash('sha256').update(token).digest('hex'),
      permissions,
      createdBy,
    ],
  );
  return { id: row.id, token };
}
