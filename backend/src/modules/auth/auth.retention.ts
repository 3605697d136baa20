import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionRegistry } from '../retention/retention.registry';
import { AdminAttemptRepository } from './admin-attempt.repository';
import { AdminSessionRepository } from './admin-session.repository';
import { LOGIN_FAILURES_FORGOTTEN_HOURS } from './login-lockout';
import { UnknownLoginNameRepository } from './unknown-login-name.repository';

/** Ended admin sessions are kept this long (which device signed in when stays in the audit log for a year). */
const ENDED_SESSION_DAYS = 30;
/** Per-user attempt counters: the longest window they serve is an hour. */
const ATTEMPT_HOURS = 24;

/**
 * Sign-in's part of the retention run (docs/security.md): admin sessions that ended more than 30 days ago (with their
 * spent refresh tokens); the attempt counters, per user and those of usernames with no account, after a day.
 */
@Injectable()
export class AuthRetention implements OnModuleInit {
  constructor(
    private readonly retention: RetentionRegistry,
    private readonly sessions: AdminSessionRepository,
    private readonly attempts: AdminAttemptRepository,
    private readonly unknownLoginNames: UnknownLoginNameRepository,
  ) {}

  onModuleInit(): void {
    this.retention.deletes('adminSessions', (batch) => this.sessions.deleteEndedBefore(ENDED_SESSION_DAYS, batch));
    this.retention.deletes('adminAttempts', (batch) => this.attempts.deleteOlderThan(ATTEMPT_HOURS, batch));
    this.retention.deletes('adminAttempts', (batch) =>
      this.unknownLoginNames.deleteIdleFor(LOGIN_FAILURES_FORGOTTEN_HOURS, batch),
    );
  }
}
