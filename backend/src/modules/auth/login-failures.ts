import { HttpException, HttpStatus, Injectable, UnauthorizedException } from '@nestjs/common';
import { RequestMeta } from '../../common/utils/request-actor';
import { DomainEvents } from '../../events/domain-events.service';
import { BlockedIpService } from './blocked-ip.service';
import { LoginDto } from './dto/login.dto';
import { LockoutRule } from './login-lockout';
import { PasswordHash, unmatchableHash, verifyPassword } from './password';
import { UnknownLoginNameRepository } from './unknown-login-name.repository';

/** The audited failures of a sign-in (docs/auth.md): each also counts towards blocking the address. */
export type LoginFailureAction = 'login.failure' | 'login.locked' | 'login.2fa-failure' | 'login.recovery-code';

/** The answers of a refused sign-in, and the lockout of usernames that have no account. */
@Injectable()
export class LoginFailures {
  /** Unknown usernames are checked against this hash so they take as long as known ones. */
  private readonly dummyHash: PasswordHash = unmatchableHash();

  constructor(
    private readonly events: DomainEvents,
    private readonly blockedIps: BlockedIpService,
    private readonly unknownNames: UnknownLoginNameRepository,
  ) {}

  /** A failed sign-in: its audit row first (the address's count reads it), then the address's check. */
  async failed(
    action: LoginFailureAction,
    adminUserId: string | null,
    meta: RequestMeta,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.events.publish(action, { success: false, adminUserId, resource: 'admin_sessions', ...meta, details });
    await this.blockedIps.noteFailedLogin(meta.ipAddress, meta.userAgent);
  }

  /**
   * A username with no account answers exactly as an account would (docs/product.md §13.2): its failures
   * are counted per name (no account is created), 5 lock it for 15 minutes (423, without a password check, as for an
   * account), and the password is checked against a dummy hash first so a 401 takes as long as an account's.
   */
  async unknownUser(dto: LoginDto, meta: RequestMeta, reason: string, rule: LockoutRule): Promise<never> {
    const attempt = await this.unknownNames.claimLoginAttempt(dto.username, rule);
    if (attempt === null) {
      await this.failed('login.locked', null, meta, { username: dto.username, reason });
      throw new HttpException(LOGIN_FAILURE_MESSAGES.locked, HttpStatus.LOCKED);
    }
    await verifyPassword(dto.password, this.dummyHash);
    const lockedUntil = await this.unknownNames.lockIfExhausted(dto.username, rule);
    await this.failed('login.failure', null, meta, {
      username: dto.username,
      reason,
      failedAttempts: attempt,
      lockedUntil,
    });
    throw new UnauthorizedException(LOGIN_FAILURE_MESSAGES.invalid);
  }
}

/** The answers of a refused password sign-in (LOGIN_MESSAGES repeats them). */
export const LOGIN_FAILURE_MESSAGES = {
  invalid: 'Invalid username or password',
  locked: 'Account temporarily locked. Try again later.',
} as const;
