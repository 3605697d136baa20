import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { queryRows, resealColumn } from '../../database/query-rows';
import { AdminUser } from './entities/admin-user.entity';
import { LOGIN_FAILURES_FORGOTTEN_HOURS, LockoutRule } from './login-lockout';

export interface NewAdminUser {
  username: string;
  email: string;
  passwordHash: string;
  salt: string;
  role: string;
  oidcIssuer?: string;
  oidcSubject?: string;
}

/**
 * The one owner of `admin_users`. Reads by key go through the entity; the sign-in counters are conditional
 * UPDATEs so concurrent attempts are settled by the row lock. Those UPDATEs are hand-written because they
 * must not touch `updated_at` unless they say so: the lockout rule reads it (see claimLoginAttempt).
 */
@Injectable()
export class AdminUserRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  private users() {
    return this.database.current.getRepository(AdminUser);
  }

  /** The user with its TOTP secret opened (in `twoFactorSecret`): sealed at rest under DATA_KEY (docs/security.md). */
  async findById(id: string): Promise<AdminUser | null> {
    return this.opened(await this.users().findOneBy({ id }));
  }

  async findByUsername(username: string): Promise<AdminUser | null> {
    return this.opened(await this.users().findOneBy({ username }));
  }

  /** The staff account linked to a single sign-on identity (docs/product.md: linked by issuer + subject only). */
  findByOidcIdentity(issuer: string, subject: string): Promise<AdminUser | null> {
    return this.users().findOneBy({ oidcIssuer: issuer, oidcSubject: subject });
  }

  /** The role the provider gave at this sign-in (re-read every time). */
  async setRole(id: string, role: string): Promise<void> {
    const db = this.database.current;
    await db.query(`UPDATE admin_users SET role = $2, updated_at = now() WHERE id = $1 AND role <> $2`, [id, role]);
  }

  existsWithRole(role: string): Promise<boolean> {
    return this.users().existsBy({ role });
  }

  /** An active account with this e-mail (case-insensitive): the staff addresses test e-mails may go to. */
  existsWithEmail(email: string): Promise<boolean> {
    return this.users()
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email) AND u.isActive = true', { email: email.trim() })
      .getExists();
  }

  /** Active admins with an e-mail address: who gets the low-pool alerts (docs/product.md §20.2). */
  async activeAdminRecipients(): Promise<Array<{ id: string; email: string }>> {
    return this.users()
      .createQueryBuilder('u')
      .select(['u.id AS id', 'u.email AS email'])
      .where(`u.role = 'admin' AND u.isActive = true AND btrim(u.email) <> ''`)
      .orderBy('u.username')
      .getRawMany();
  }

  /** Usernames by id (a redemption's history names who acted); ids of deleted users are simply absent. */
  async usernames(ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows: Array<{ id: string; username: string }> = await this.users()
      .createQueryBuilder('u')
      .select(['u.id AS id', 'u.username AS username'])
      .where('u.id IN (:...ids)', { ids })
      .getRawMany();
    return new Map(rows.map((r) => [r.id, r.username]));
  }

  existsWithUsername(username: string): Promise<boolean> {
    return this.users().existsBy({ username });
  }

  /** The new user's id, or null when the username or e-mail is taken (ON CONFLICT: instances may race at boot). */
  async insertIfAbsent(user: NewAdminUser): Promise<string | null> {
    const db = this.database.current;
    const result = await db
      .createQueryBuilder()
      .insert()
      .into(AdminUser)
      .values(user)
      .orIgnore()
      .returning(['id'])
      .updateEntity(false)
      .execute();
    const [row] = result.raw as Array<{ id: string }>;
    return row?.id ?? null;
  }

  /**
   * Counts a login attempt as failed up front (a success resets the count) and answers its number, or
   * null when the account is locked or already has `attempts` undecided or failed attempts.
   * One conditional UPDATE: concurrent attempts queue on the row lock and at most the limit get through.
   * An expired lock starts a fresh count; so does a count stuck at the limit with no lock (an attempt cut
   * off between this claim and its verdict) once a lockout period has passed, and a count with no attempt
   * for LOGIN_FAILURES_FORGOTTEN_HOURS. UnknownLoginNameRepository keeps names with no account by the same rule.
   */
  async claimLoginAttempt(id: string, rule: LockoutRule): Promise<number | null> {
    const [row] = await queryRows<{ failed_login_attempts: number }>(
      this.database.manager,
      `UPDATE admin_users SET
          failed_login_attempts = CASE
            WHEN failed_login_attempts >= $2 OR updated_at <= $4::timestamptz - make_interval(hours => $5) THEN 1
            ELSE failed_login_attempts + 1 END,
          locked_until = NULL,
          updated_at = $4::timestamptz
        WHERE id = $1
          AND (locked_until IS NULL OR locked_until <= $4::timestamptz)
          AND (failed_login_attempts < $2 OR locked_until <= $4::timestamptz
               OR updated_at <= $4::timestamptz - make_interval(mins => $3))
        RETURNING failed_login_attempts`,
      [id, rule.attempts, rule.minutes, rule.now, LOGIN_FAILURES_FORGOTTEN_HOURS],
    );
    return row ? row.failed_login_attempts : null;
  }

  /** Takes back an attempt counted by claimLoginAttempt (right password, second factor still to come). */
  async releaseLoginAttempt(id: string): Promise<void> {
    await this.database.manager.query(
      `UPDATE admin_users SET failed_login_attempts = greatest(failed_login_attempts - 1, 0) WHERE id = $1`,
      [id],
    );
  }

  /** Locks the account when its failed attempts reached the limit and it is not locked yet; answers the lock's end. */
  async lockIfExhausted(id: string, rule: LockoutRule): Promise<Date | null> {
    const [row] = await queryRows<{ locked_until: Date }>(
      this.database.manager,
      `UPDATE admin_users SET locked_until = $4::timestamptz + make_interval(mins => $3)
        WHERE id = $1 AND failed_login_attempts >= $2 AND locked_until IS NULL
        RETURNING locked_until`,
      [id, rule.attempts, rule.minutes, rule.now],
    );
    return row?.locked_until ?? null;
  }

  async recordLogin(id: string): Promise<void> {
    const db = this.database.current;
    await db.query(
      `UPDATE admin_users SET failed_login_attempts = 0, locked_until = NULL, last_login_at = now() WHERE id = $1`,
      [id],
    );
  }

  /**
   * Deactivates (`active` false) or reactivates an account, found by id or username: an inactive account signs in
   * nowhere, and its sessions and API tokens are refused (the session and token lookups read `is_active`). Its id
   * and username, or null when there is no such account.
   */
  async setActive(
    account: { id: string } | { username: string },
    active: boolean,
  ): Promise<{ id: string; username: string } | null> {
    const where = 'id' in account ? 'id = $1::uuid' : 'username = $1';
    const [user] = await queryRows<{ id: string; username: string }>(
      this.database.current,
      `UPDATE admin_users SET is_active = $2, updated_at = now() WHERE ${where} RETURNING id, username`,
      ['id' in account ? account.id : account.username, active],
    );
    return user ?? null;
  }

  async setPassword(id: string, passwordHash: string, salt: string): Promise<void> {
    const db = this.database.current;
    await db.query(`UPDATE admin_users SET password_hash = $2, salt = $3, updated_at = now() WHERE id = $1`, [
      id,
      passwordHash,
      salt,
    ]);
  }

  /** A new password for `username` with any lock lifted; the user's id, or null when there is no such user. */
  async resetPassword(username: string, passwordHash: string, salt: string): Promise<string | null> {
    const db = this.database.current;
    const [user] = await queryRows<{ id: string }>(
      db,
      `UPDATE admin_users SET password_hash = $2, salt = $3, failed_login_attempts = 0, locked_until = NULL, updated_at = now()
        WHERE username = $1 RETURNING id`,
      [username, passwordHash, salt],
    );
    return user?.id ?? null;
  }

  /** Records `step` as the last accepted TOTP step unless that step (or a later one) was accepted already. */
  async claimTotpStep(id: string, step: number): Promise<boolean> {
    const claimed = await queryRows(
      this.database.manager,
      `UPDATE admin_users SET two_factor_last_step = $2
        WHERE id = $1 AND (two_factor_last_step IS NULL OR two_factor_last_step < $2) RETURNING id`,
      [id, step],
    );
    return claimed.length > 0;
  }

  /** Stores a new TOTP secret, sealed, unless two-factor is already on; false when it is. */
  async setTotpSecretUnlessEnabled(id: string, secret: string): Promise<boolean> {
    const updated = await queryRows(
      this.database.manager,
      `UPDATE admin_users SET two_factor_secret = NULL, two_factor_secret_ciphertext = $2, updated_at = now()
        WHERE id = $1 AND NOT two_factor_enabled RETURNING id`,
      [id, this.cipher.seal(secret)],
    );
    return updated.length > 0;
  }

  /**
   * Start-up step: seals the TOTP secrets still stored in clear (rows from before migration 1763832000000) and empties
   * them; answers how many. A handful of rows, one statement each, guarded so a row changed meanwhile is left alone.
   */
  async sealPlainTotpSecrets(): Promise<number> {
    const plain = await queryRows<{ id: string; secret: string }>(
      this.database.manager,
      `SELECT id, two_factor_secret AS secret FROM admin_users WHERE two_factor_secret IS NOT NULL`,
    );
    let sealed = 0;
    for (const row of plain) {
      const done = await queryRows(
        this.database.manager,
        `UPDATE admin_users SET two_factor_secret = NULL, two_factor_secret_ciphertext = $3
          WHERE id = $1 AND two_factor_secret = $2 RETURNING id`,
        [row.id, row.secret, this.cipher.seal(row.secret)],
      );
      sealed += done.length;
    }
    return sealed;
  }

  /** `rotate-data-key`: the TOTP secrets still under DATA_KEY_PREVIOUS re-sealed under DATA_KEY; answers how many. */
  rotateTotpSecrets(): Promise<number> {
    return resealColumn(this.database.manager, this.cipher, 'admin_users', 'two_factor_secret_ciphertext');
  }

  /** `rotate-data-key`'s closing check: TOTP secrets not under DATA_KEY (sealed under another key, or still in clear). */
  async countTotpSecretsNotUnder(keyId: Buffer): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.database.manager,
      `SELECT count(*)::int AS n FROM admin_users
        WHERE two_factor_secret IS NOT NULL OR substring(two_factor_secret_ciphertext FROM 2 FOR 4) <> $1`,
      [keyId],
    );
    return n;
  }

  async enableTwoFactor(id: string): Promise<void> {
    const db = this.database.current;
    await db.query(`UPDATE admin_users SET two_factor_enabled = true, updated_at = now() WHERE id = $1`, [id]);
  }

  async disableTwoFactor(id: string): Promise<void> {
    const db = this.database.current;
    await db.query(
      `UPDATE admin_users SET two_factor_enabled = false, two_factor_secret = NULL, two_factor_secret_ciphertext = NULL, updated_at = now()
        WHERE id = $1`,
      [id],
    );
  }

  private opened(user: AdminUser | null): AdminUser | null {
    if (user?.twoFactorSecretCiphertext) user.twoFactorSecret = this.cipher.open(user.twoFactorSecretCiphertext);
    return user;
  }
}
