import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { AdminAttemptRepository } from './admin-attempt.repository';
import { AdminUserRepository } from './admin-user.repository';

export const ATTEMPT_LIMITS = {
  /** change-password, 2FA setup/enable/disable: wrong answers per user (docs/product.md §18.5 "Stolen-token limits"). */
  secretCheck: { kind: 'secret-check', limit: 5, windowMinutes: 15 },
  /** Test e-mails sent per user (docs/product.md §18.6 "Test e-mails"). */
  testEmail: { kind: 'test-email', limit: 10, windowMinutes: 60 },
} as const;

export const ATTEMPT_MESSAGES = {
  secretCheck: 'Too many failed attempts. Please wait 15 minutes and try again.',
  testEmail: 'Too many test e-mails: at most 10 per hour. Please try again later.',
  notStaff: 'Test e-mails can only be sent to the e-mail address of a staff account.',
} as const;

type Limit = (typeof ATTEMPT_LIMITS)[keyof typeof ATTEMPT_LIMITS];

/**
 * Per-user attempt limits kept in PostgreSQL (`admin_attempts`), so they hold across API instances.
 * `guard(user, limit, fn)` claims an attempt before `fn` runs (429 when none is left), gives it back when
 * `fn` succeeds (secret checks) or keeps it (test e-mails), and keeps it as a failure when `fn` throws.
 */
@Injectable()
export class AttemptLimiterService {
  constructor(
    private readonly attempts: AdminAttemptRepository,
    private readonly users: AdminUserRepository,
  ) {}

  /** A wrong password or code inside `fn` must throw; the throw counts as one failed attempt. */
  async secretCheck<T>(adminUserId: string, fn: () => Promise<T>): Promise<T> {
    return this.guard(adminUserId, ATTEMPT_LIMITS.secretCheck, ATTEMPT_MESSAGES.secretCheck, fn, false);
  }

  /** Every test e-mail counts, sent or not. */
  async testEmail<T>(adminUserId: string, fn: () => Promise<T>): Promise<T> {
    return this.guard(adminUserId, ATTEMPT_LIMITS.testEmail, ATTEMPT_MESSAGES.testEmail, fn, true);
  }

  /** True when the address (case-insensitive) belongs to an admin account. */
  isStaffEmail(email: string): Promise<boolean> {
    return this.users.existsWithEmail(email);
  }

  private async guard<T>(
    adminUserId: string,
    limit: Limit,
    message: string,
    fn: () => Promise<T>,
    keepOnSuccess: boolean,
  ): Promise<T> {
    const id = await this.attempts.claim(adminUserId, limit.kind, limit.limit, limit.windowMinutes);
    if (!id) throw new HttpException(message, HttpStatus.TOO_MANY_REQUESTS);
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      await this.attempts.settle(id, 'failure');
      throw err;
    }
    if (keepOnSuccess) await this.attempts.settle(id, 'done');
    else await this.attempts.release(id);
    return result;
  }
}
