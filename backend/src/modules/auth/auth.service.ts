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
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DatabaseService } from '../../database/database.service';
import { AdminUserRepository } from './admin-user.repository';
import { AttemptLimiterService } from './attempt-limiter.service';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { ChangePasswordDto, CreateShopManagerDto } from './dto/account.dto';
import { LoginDto } from './dto/login.dto';
import { LockoutRule } from './login-lockout';
import { generatePassword, hashPassword, verifyPassword } from './password';
import { PASSWORD_MESSAGES } from './password-policy';
import { Role } from '../../common/permissions';
import { RequestMeta } from '../../common/utils/request-actor';
import { SessionService } from './session.service';
import { TWO_FACTOR_MESSAGES, TwoFactorService } from './two-factor.service';
import { LOGIN_FAILURE_MESSAGES, LoginFailures } from './login-failures';
import { DomainEvents } from '../../events/domain-events.service';

export const LOGIN_MESSAGES = {
  ...LOGIN_FAILURE_MESSAGES,
  invalidCode: TWO_FACTOR_MESSAGES.invalidCode,
  invalidRefresh: 'Invalid or expired refresh token',
  invalidRecoveryCode: TWO_FACTOR_MESSAGES.invalidRecoveryCode,
  sessionNotFound: 'Session not found',
} as const;

export const ACCOUNT_MESSAGES = {
  userNotFound: 'User not found',
  deactivateSelf: 'You cannot deactivate your own account',
} as const;

export interface LoginResponse {
  accessToken?: string;
  refreshToken?: string;
  requiresTwoFactor: boolean;
}

@Injectable()
export class AuthService {
  constructor(
    private readonly database: DatabaseService,
    private readonly users: AdminUserRepository,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly events: DomainEvents,
    private readonly limiter: AttemptLimiterService,
    private readonly failures: LoginFailures,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async login(dto: LoginDto, meta: RequestMeta): Promise<LoginResponse> {
    // LOCAL_LOGIN=false: password sign-in is left to the ADMIN_USERNAME account (break-glass); everyone else signs
    // in through the provider. Answered (and locked out) like an unknown user, so the answer tells nothing.
    const localLoginOff = !this.config.localLogin && dto.username !== this.config.adminUsername;
    const user = localLoginOff ? null : await this.users.findByUsername(dto.username);
    if (!user) {
      return this.failures.unknownUser(
        dto,
        meta,
        localLoginOff ? 'password sign-in is off (LOCAL_LOGIN=false)' : 'unknown user',
        this.lockout,
      );
    }
    // The attempt is counted before the (slow) password check, so parallel guesses cannot exceed the limit.
    const attempt = await this.users.claimLoginAttempt(user.id, this.lockout);
    if (attempt === null) {
      await this.failures.failed('login.locked', user.id, meta, {
        username: dto.username,
        lockedUntil: user.lockedUntil,
      });
      throw new HttpException(LOGIN_MESSAGES.locked, HttpStatus.LOCKED);
    }
    const passwordOk = await verifyPassword(dto.password, { hash: user.passwordHash, salt: user.salt });
    if (!passwordOk || !user.isActive) {
      const lockedUntil = await this.users.lockIfExhausted(user.id, this.lockout);
      await this.failures.failed('login.failure', user.id, meta, {
        username: dto.username,
        reason: passwordOk ? 'inactive account' : 'wrong password',
        failedAttempts: attempt,
        lockedUntil,
      });
      throw new UnauthorizedException(LOGIN_MESSAGES.invalid);
    }

    let recoveryCodesLeft: number | undefined;
    if (user.twoFactorEnabled && dto.recoveryCode) {
      recoveryCodesLeft = await this.spendRecoveryCode(user.id, dto.username, dto.recoveryCode, attempt, meta);
    } else if (user.twoFactorEnabled) {
      if (!dto.twoFactorCode) {
        // Right password, code still to come: this step is neither a failure nor a success.
        await this.users.releaseLoginAttempt(user.id);
        await this.events.publish('login.2fa-required', {
          success: true,
          adminUserId: user.id,
          resource: 'admin_sessions',
          ...meta,
        });
        return { requiresTwoFactor: true };
      }
      if (!(await this.twoFactor.consume(user.id, user.twoFactorSecret, dto.twoFactorCode))) {
        const lockedUntil = await this.users.lockIfExhausted(user.id, this.lockout);
        await this.failures.failed('login.2fa-failure', user.id, meta, {
          username: dto.username,
          failedAttempts: attempt,
          lockedUntil,
        });
        throw new UnauthorizedException(LOGIN_MESSAGES.invalidCode);
      }
    }

    const tokens = await this.database.transaction(async () => {
      await this.users.recordLogin(user.id);
      const issued = await this.sessions.create(user.id, meta);
      if (recoveryCodesLeft !== undefined) {
        await this.events.publish('login.recovery-code', {
          success: true,
          adminUserId: user.id,
          resource: 'admin_sessions',
          resourceId: issued.sessionId,
          ...meta,
          details: { recoveryCodesLeft },
        });
      }
      await this.events.publish('login.success', {
        success: true,
        adminUserId: user.id,
        resource: 'admin_sessions',
        resourceId: issued.sessionId,
        ...meta,
        details: { twoFactor: user.twoFactorEnabled, ...(recoveryCodesLeft !== undefined && { recoveryCode: true }) },
      });
      return issued;
    });
    return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, requiresTwoFactor: false };
  }

  async refresh(refreshToken: string, meta: RequestMeta): Promise<LoginResponse> {
    const outcome = await this.sessions.refresh(refreshToken, meta);
    if (outcome.kind === 'rotated') {
      return {
        accessToken: outcome.tokens.accessToken,
        refreshToken: outcome.tokens.refreshToken,
        requiresTwoFactor: false,
      };
    }
    if (outcome.kind === 'reused') {
      await this.events.publish('session.refresh-reuse', {
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
    await this.events.publish('logout', {
      success: true,
      adminUserId: user.id,
      resource: 'admin_sessions',
      resourceId: user.sessionId,
      ...meta,
    });
    return { success: true };
  }

  /**
   * A recovery code in place of the TOTP code: a wrong one is a failed sign-in (docs/product.md §13.2 lockout) and a
   * failed secret check of the user (docs/product.md §18.5: shared with the 2FA calls, 5 per 15 minutes, then 429).
   */
  private async spendRecoveryCode(
    userId: string,
    username: string,
    code: string,
    attempt: number,
    meta: RequestMeta,
  ): Promise<number> {
    try {
      return await this.limiter.secretCheck(userId, async () => {
        const left = await this.twoFactor.spendRecoveryCode(userId, code);
        if (left === null) throw new UnauthorizedException(LOGIN_MESSAGES.invalidRecoveryCode);
        return left;
      });
    } catch (err) {
      const lockedUntil = await this.users.lockIfExhausted(userId, this.lockout);
      const reason =
        err instanceof HttpException && err.getStatus() === HttpStatus.TOO_MANY_REQUESTS
          ? 'too many failed attempts'
          : 'invalid or used recovery code';
      await this.failures.failed('login.recovery-code', userId, meta, {
        username,
        reason,
        failedAttempts: attempt,
        lockedUntil,
      });
      throw err;
    }
  }

  /** The caller's live sessions, this one marked `current`. */
  listSessions(user: AuthUser) {
    return this.sessions.listOwn(user.id, user.sessionId);
  }

  /** Ends one of the caller's own sessions; another user's (or an ended) session is 404. Its tokens stop at once. */
  async endSession(user: AuthUser, sessionId: string, meta: RequestMeta): Promise<{ success: true }> {
    if (!(await this.sessions.revokeOwn(user.id, sessionId))) {
      throw new NotFoundException(LOGIN_MESSAGES.sessionNotFound);
    }
    await this.events.publish('session.revoke', {
      success: true,
      adminUserId: user.id,
      resource: 'admin_sessions',
      resourceId: sessionId,
      ...meta,
      details: { current: sessionId === user.sessionId },
    });
    return { success: true };
  }

  /** Ends every session of the caller except this one. */
  async endOtherSessions(user: AuthUser, meta: RequestMeta): Promise<{ revoked: number }> {
    const revoked = await this.sessions.revokeAllOf(user.id, user.sessionId);
    await this.events.publish('session.revoke-others', {
      success: true,
      adminUserId: user.id,
      resource: 'admin_sessions',
      resourceId: user.sessionId,
      ...meta,
      details: { revoked },
    });
    return { revoked };
  }

  /** docs/product.md §4.9 shape of the me call. */
  async me(user: AuthUser) {
    const row = await this.users.findById(user.id);
    return {
      id: user.id,
      username: user.username,
      email: user.email,
      role: user.role,
      permissions: user.permissions,
      twoFactorEnabled: Boolean(row?.twoFactorEnabled),
    };
  }

  async changePassword(user: AuthUser, dto: ChangePasswordDto, meta: RequestMeta): Promise<{ message: string }> {
    if (dto.confirmPassword !== undefined && dto.confirmPassword !== dto.newPassword) {
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.mismatch,
        errors: [{ field: 'confirmPassword', message: PASSWORD_MESSAGES.mismatch }],
      });
    }
    const row = await this.users.findById(user.id);
    if (!row) throw new UnauthorizedException(LOGIN_MESSAGES.invalid);
    const audit = {
      adminUserId: user.id,
      resource: 'admin_users',
      resourceId: user.id,
      ...meta,
    };
    // docs/product.md §18.5: at most 5 wrong answers per 15 minutes per user (shared with the 2FA calls), then 429.
    await this.limiter.secretCheck(user.id, async () => {
      if (await verifyPassword(dto.currentPassword, { hash: row.passwordHash, salt: row.salt })) return;
      await this.events.publish('password.change', {
        ...audit,
        success: false,
        details: { reason: 'current password incorrect' },
      });
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.currentWrong,
        errors: [{ field: 'currentPassword', message: PASSWORD_MESSAGES.currentWrong }],
      });
    });
    if (dto.newPassword === dto.currentPassword) {
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.unchanged,
        errors: [{ field: 'newPassword', message: PASSWORD_MESSAGES.unchanged }],
      });
    }
    const { hash, salt } = await hashPassword(dto.newPassword);
    await this.database.transaction(async () => {
      await this.users.setPassword(user.id, hash, salt);
      // Whoever else holds a session of this account (a leaked password) is signed out; this one stays.
      const ended = await this.sessions.revokeAllOf(user.id, user.sessionId);
      await this.events.publish('password.change', {
        ...audit,
        success: true,
        details: { otherSessionsRevoked: ended },
      });
    });
    return { message: 'Password changed successfully' };
  }

  /** Gives the `operator` account a new generated password; its sessions end. */
  async resetOperator(admin: AuthUser, meta: RequestMeta): Promise<{ username: string; newPassword: string }> {
    const newPassword = generatePassword();
    const { hash, salt } = await hashPassword(newPassword);
    await this.database.transaction(async () => {
      const operatorId = await this.users.resetPassword('operator', hash, salt);
      if (!operatorId) throw new NotFoundException('Operator account not found');
      const ended = await this.sessions.revokeAllOf(operatorId);
      await this.events.publish('operator.reset-password', {
        success: true,
        adminUserId: admin.id,
        resource: 'admin_users',
        resourceId: operatorId,
        ...meta,
        details: { username: 'operator', sessionsRevoked: ended },
      });
    });
    return { username: 'operator', newPassword };
  }

  /**
   * Deactivates a staff account (docs/auth.md "Deactivating an account"): it signs in nowhere, its sessions end at
   * once (the next request of any of its tokens is 401, its sockets close at the next re-check) and its API tokens
   * stop; audited. The caller's own account is refused (nobody locks themselves out by a click).
   */
  async deactivateUser(admin: AuthUser, userId: string, meta: RequestMeta) {
    if (userId === admin.id) throw new BadRequestException(ACCOUNT_MESSAGES.deactivateSelf);
    return this.database.transaction(async () => {
      const user = await this.users.setActive({ id: userId }, false);
      if (!user) throw new NotFoundException(ACCOUNT_MESSAGES.userNotFound);
      const sessionsEnded = await this.sessions.revokeAllOf(user.id);
      await this.events.publish('admin-user.deactivate', {
        success: true,
        adminUserId: admin.id,
        resource: 'admin_users',
        resourceId: user.id,
        ...meta,
        details: { username: user.username, sessionsEnded },
      });
      return { id: user.id, username: user.username, isActive: false, sessionsEnded };
    });
  }

  async createShopManager(admin: AuthUser, dto: CreateShopManagerDto, meta: RequestMeta) {
    const username = dto.username ?? 'shop_manager';
    const email = dto.email?.trim().toLowerCase() ?? `${username.toLowerCase()}@localhost`;
    const password = generatePassword();
    const { hash, salt } = await hashPassword(password);
    const createdId = await this.users.insertIfAbsent({
      username,
      email,
      passwordHash: hash,
      salt,
      role: Role.ShopManager,
    });
    if (!createdId) throw new ConflictException('A user with this username or e-mail already exists');
    await this.events.publish('admin-user.create', {
      success: true,
      adminUserId: admin.id,
      resource: 'admin_users',
      resourceId: createdId,
      ...meta,
      details: { username, role: Role.ShopManager },
    });
    return { username, password };
  }

  /** The lockout rule, with "now" from the Clock (tests move it). */
  private get lockout(): LockoutRule {
    return {
      attempts: this.config.loginLockoutAttempts,
      minutes: this.config.loginLockoutMinutes,
      now: this.clock.now(),
    };
  }
}
