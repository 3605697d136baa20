import {
  BadRequestException,
  ConflictException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuditService } from '../audit/audit.service';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { BlockedIpService } from './blocked-ip.service';
import { ChangePasswordDto, CreateShopManagerDto } from './dto/account.dto';
import { LoginDto } from './dto/login.dto';
import { generatePassword, hashPassword, PasswordHash, verifyPassword } from './password';
import { PASSWORD_MESSAGES } from './password-policy';
import { Role } from '../../common/permissions';
import { RequestMeta } from '../../common/utils/request-actor';
import { SessionService } from './session.service';
import { queryRows } from '../../common/utils/sql';
import { TWO_FACTOR_MESSAGES, TwoFactorService } from './two-factor.service';

export const LOGIN_MESSAGES = {
  invalid: 'Invalid username or password',
  locked: 'Account temporarily locked. Try again later.',
  invalidCode: TWO_FACTOR_MESSAGES.invalidCode,
  invalidRefresh: 'Invalid or expired refresh token',
} as const;

export interface LoginResponse {
  accessToken?: string;
  refreshToken?: string;
  requiresTwoFactor: boolean;
}

interface LoginRow {
  id: string;
  role: string;
  is_active: boolean;
  password_hash: string;
  salt: string;
  two_factor_enabled: boolean;
  two_factor_secret: string | null;
  locked_until: Date | null;
}

@Injectable()
export class AuthService {
  /** Unknown usernames are checked against this hash so they take as long as known ones. */
  private readonly dummyHash: Promise<PasswordHash> = hashPassword(randomBytes(16).toString('hex'));

  constructor(
    private readonly dataSource: DataSource,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly blockedIps: BlockedIpService,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async login(dto: LoginDto, meta: RequestMeta): Promise<LoginResponse> {
    const [user]: LoginRow[] = await this.dataSource.query(
      `SELECT id, role, is_active, password_hash, salt, two_factor_enabled, two_factor_secret, locked_until
         FROM admin_users WHERE username = $1`,
      [dto.username],
    );
    if (!user) {
      await verifyPassword(dto.password, await this.dummyHash);
      await this.failed('login.failure', null, meta, { username: dto.username, reason: 'unknown user' });
      throw new UnauthorizedException(LOGIN_MESSAGES.invalid);
    }
    // The attempt is counted before the (slow) password check, so parallel guesses cannot exceed the limit.
    const attempt = await this.claimAttempt(user.id);
    if (attempt === null) {
      await this.failed('login.locked', user.id, meta, { username: dto.username, lockedUntil: user.locked_until });
      throw new HttpException(LOGIN_MESSAGES.locked, HttpStatus.LOCKED);
    }
    const passwordOk = await verifyPassword(dto.password, { hash: user.password_hash, salt: user.salt });
    if (!passwordOk || !user.is_active) {
      const lockedUntil = await this.lockIfExhausted(user.id);
      await this.failed('login.failure', user.id, meta, {
        username: dto.username,
        reason: passwordOk ? 'inactive account' : 'wrong password',
        failedAttempts: attempt,
        lockedUntil,
      });
      throw new UnauthorizedException(LOGIN_MESSAGES.invalid);
    }

    if (user.two_factor_enabled) {
      if (!dto.twoFactorCode) {
        // Right password, code still to come: this step is neither a failure nor a success.
        await this.dataSource.query(
          `UPDATE admin_users SET failed_login_attempts = greatest(failed_login_attempts - 1, 0) WHERE id = $1`,
          [user.id],
        );
        await this.audit.record({ action: 'login.2fa-required', success: true, adminUserId: user.id, resource: 'admin_sessions', ...meta });
        return { requiresTwoFactor: true };
      }
      if (!(await this.twoFactor.consume(user.id, user.two_factor_secret, dto.twoFactorCode))) {
        const lockedUntil = await this.lockIfExhausted(user.id);
        await this.failed('login.2fa-failure', user.id, meta, { username: dto.username, failedAttempts: attempt, lockedUntil });
        throw new UnauthorizedException(LOGIN_MESSAGES.invalidCode);
      }
    }

    const tokens = await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE admin_users SET failed_login_attempts = 0, locked_until = NULL, last_login_at = now() WHERE id = $1`,
        [user.id],
      );
      const issued = await this.sessions.create(user.id, meta, manager);
      await this.audit.record(
        {
          action: 'login.success',
          success: true,
          adminUserId: user.id,
          resource: 'admin_sessions',
          resourceId: issued.sessionId,
          ...meta,
          details: { twoFactor: user.two_factor_enabled },
        },
        manager,
      );
      return issued;
    });
    return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, requiresTwoFactor: false };
  }

  async refresh(refreshToken: string, meta: RequestMeta): Promise<LoginResponse> {
    const outcome = await this.sessions.refresh(refreshToken, meta);
    if (outcome.kind === 'rotated') {
      return { accessToken: outcome.tokens.accessToken, refreshToken: outcome.tokens.refreshToken, requiresTwoFactor: false };
    }
    if (outcome.kind === 'reused') {
      await this.audit.record({
        action: 'session.refresh-reuse',
        success: false,
        adminUserId: outcome.adminUserId,
        resource: 'admin_sessions',
        resourceId: outcome.sessionId,
        ...meta,
        details: { reason: 'a spent refresh token was presented again; session revoked' },
      });
    }
    throw new UnauthorizedException(LOGIN_MESSAGES.invalidRefresh);
  }

  async logout(user: AuthUser, meta: RequestMeta): Promise<{ success: true }> {
    await this.sessions.revoke(user.sessionId);
    await this.audit.record({ action: 'logout', success: true, adminUserId: user.id, resource: 'admin_sessions', resourceId: user.sessionId, ...meta });
    return { success: true };
  }

  /** DECISIONS §7 shape of the me call. */
  async me(user: AuthUser) {
    const [row] = await this.dataSource.query(`SELECT two_factor_enabled FROM admin_users WHERE id = $1`, [user.id]);
    return {
      id: user.id,
      username: user.username,
      email: user.email,
      role: user.role,
      permissions: user.permissions,
      twoFactorEnabled: Boolean(row?.two_factor_enabled),
    };
  }

  async changePassword(user: AuthUser, dto: ChangePasswordDto, meta: RequestMeta): Promise<{ message: string }> {
    if (dto.confirmPassword !== undefined && dto.confirmPassword !== dto.newPassword) {
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.mismatch,
        errors: [{ field: 'confirmPassword', message: PASSWORD_MESSAGES.mismatch }],
      });
    }
    const [row] = await this.dataSource.query(`SELECT password_hash, salt FROM admin_users WHERE id = $1`, [user.id]);
    const audit = { action: 'password.change', adminUserId: user.id, resource: 'admin_users', resourceId: user.id, ...meta };
    if (!(await verifyPassword(dto.currentPassword, { hash: row.password_hash, salt: row.salt }))) {
      await this.audit.record({ ...audit, success: false, details: { reason: 'current password incorrect' } });
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.currentWrong,
        errors: [{ field: 'currentPassword', message: PASSWORD_MESSAGES.currentWrong }],
      });
    }
    if (dto.newPassword === dto.currentPassword) {
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.unchanged,
        errors: [{ field: 'newPassword', message: PASSWORD_MESSAGES.unchanged }],
      });
    }
    const { hash, salt } = await hashPassword(dto.newPassword);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`UPDATE admin_users SET password_hash = $2, salt = $3, updated_at = now() WHERE id = $1`, [user.id, hash, salt]);
      // Whoever else holds a session of this account (a leaked password) is signed out; this one stays.
      const ended = await this.sessions.revokeAllOf(user.id, user.sessionId, manager);
      await this.audit.record({ ...audit, success: true, details: { otherSessionsRevoked: ended } }, manager);
    });
    return { message: 'Password changed successfully' };
  }

  /** Gives the `operator` account a new generated password; its sessions end. */
  async resetOperator(admin: AuthUser, meta: RequestMeta): Promise<{ username: string; newPassword: string }> {
    const newPassword = generatePassword();
    const { hash, salt } = await hashPassword(newPassword);
    await this.dataSource.transaction(async (manager) => {
      const [operator] = await queryRows<{ id: string }>(
        manager,
        `UPDATE admin_users SET password_hash = $1, salt = $2, failed_login_attempts = 0, locked_until = NULL, updated_at = now()
          WHERE username = 'operator' RETURNING id`,
        [hash, salt],
      );
      if (!operator) throw new NotFoundException('Operator account not found');
      const ended = await this.sessions.revokeAllOf(operator.id, undefined, manager);
      await this.audit.record(
        {
          action: 'operator.reset-password',
          success: true,
          adminUserId: admin.id,
          resource: 'admin_users',
          resourceId: operator.id,
          ...meta,
          details: { username: 'operator', sessionsRevoked: ended },
        },
        manager,
      );
    });
    return { username: 'operator', newPassword };
  }

  async createShopManager(admin: AuthUser, dto: CreateShopManagerDto, meta: RequestMeta) {
    const username = dto.username ?? 'shop_manager';
    const email = dto.email?.trim().toLowerCase() ?? `${username.toLowerCase()}@localhost`;
    const password = generatePassword();
    const { hash, salt } = await hashPassword(password);
    const [created] = await this.dataSource.query(
      `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING id`,
      [username, email, hash, salt, Role.ShopManager],
    );
    if (!created) throw new ConflictException('A user with this username or e-mail already exists');
    await this.audit.record({
      action: 'admin-user.create',
      success: true,
      adminUserId: admin.id,
      resource: 'admin_users',
      resourceId: created.id,
      ...meta,
      details: { username, role: Role.ShopManager },
    });
    return { username, password };
  }

  /**
   * Counts a login attempt as failed up front (a success resets the count) and answers its number, or
   * null when the account is locked or already has as many undecided or failed attempts as allowed.
   * One conditional UPDATE: concurrent attempts queue on the row lock and at most the limit get through.
   * An expired lock starts a fresh count; so does a count stuck at the limit with no lock (an attempt cut
   * off between this claim and its verdict) once a lockout period has passed.
   */
  private async claimAttempt(adminUserId: string): Promise<number | null> {
    const [row] = await queryRows<{ failed_login_attempts: number }>(
      this.dataSource.manager,
      `UPDATE admin_users SET
          failed_login_attempts = CASE WHEN failed_login_attempts >= $2 THEN 1 ELSE failed_login_attempts + 1 END,
          locked_until = NULL,
          updated_at = now()
        WHERE id = $1
          AND (locked_until IS NULL OR locked_until <= now())
          AND (failed_login_attempts < $2 OR locked_until <= now() OR updated_at <= now() - make_interval(mins => $3))
        RETURNING failed_login_attempts`,
      [adminUserId, this.config.loginLockoutAttempts, this.config.loginLockoutMinutes],
    );
    return row ? row.failed_login_attempts : null;
  }

  /** After a failed attempt: the one that used up the allowance locks the account. */
  private async lockIfExhausted(adminUserId: string): Promise<Date | null> {
    const [row] = await queryRows<{ locked_until: Date }>(
      this.dataSource.manager,
      `UPDATE admin_users SET locked_until = now() + make_interval(mins => $3)
        WHERE id = $1 AND failed_login_attempts >= $2 AND locked_until IS NULL
        RETURNING locked_until`,
      [adminUserId, this.config.loginLockoutAttempts, this.config.loginLockoutMinutes],
    );
    return row?.locked_until ?? null;
  }

  private async failed(action: string, adminUserId: string | null, meta: RequestMeta, details: Record<string, unknown>) {
    await this.audit.record({ action, success: false, adminUserId, resource: 'admin_sessions', ...meta, details });
    await this.blockedIps.noteFailedLogin(meta.ipAddress, meta.userAgent);
  }
}
