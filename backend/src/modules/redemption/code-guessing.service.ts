import { HttpException, HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { addressGroup } from '../../common/utils/client-ip';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AUTH_MESSAGES } from '../auth/auth.guard';
import { BlockedIpService, GUESS_BLOCK_REASON } from '../auth/blocked-ip.service';
import { AttemptStore } from '../attempts/attempt-store';
import { DomainEvents } from '../../events/domain-events.service';

/**
 * Code-guessing defence (docs/product.md §18.2): every "unknown code" answer, and every "licence already
 * issued to this e-mail" answer (else one valid code would probe which e-mails bought a product), counts against the
 * client's address (IPv4 /32, IPv6 /64) in the store every instance shares. REDEEM_GUESS_LIMIT of them within
 * REDEEM_GUESS_WINDOW_MINUTES block the address for REDEEM_GUESS_BLOCK_MINUTES through `blocked_ips`
 * (the global guard then answers 429 on the API), with an audit row and a real-time event to admins. The shared
 * counter checks and counts in one step: guesses fired at once over several instances, before any of them has
 * read the block, get exactly the limit's answers; each one beyond it is answered 429 as a blocked address is.
 */
@Injectable()
export class CodeGuessingService {
  private readonly logger = new Logger(CodeGuessingService.name);

  constructor(
    private readonly store: AttemptStore,
    private readonly blockedIps: BlockedIpService,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** One failed guess from `ip`: an unknown code, or a licence already issued to the e-mail given. */
  async noteFailedGuess(ip: string, userAgent: string | null): Promise<void> {
    const { redeemGuessLimit: limit, redeemGuessWindowMinutes: window, redeemGuessBlockMinutes: minutes } = this.config;
    if (limit === 0) return;
    const group = addressGroup(ip);
    const failures = await this.store.hit(`guess:${group}`, this.clock.now(), window * 60_000, limit);
    if (failures < limit) return;
    // Invalid (forged) addresses are never stored; they stay under the shared rate limit of their bucket.
    if (group === 'invalid') return;
    // Beyond the limit (not counted): the limit's own failure blocks the group, this one is refused like it.
    if (failures > limit) throw new HttpException(AUTH_MESSAGES.guessingBlocked, HttpStatus.TOO_MANY_REQUESTS);
    const expiresAt = await this.blockedIps.block(
      group,
      `${GUESS_BLOCK_REASON}: ${failures} invalid voucher codes within ${window} minutes`,
      minutes,
    );
    await this.events.publish('ip.blocked', {
      success: true,
      resource: 'blocked_ips',
      resourceId: group,
      ipAddress: ip,
      userAgent,
      details: { reason: GUESS_BLOCK_REASON, failures, windowMinutes: window, blockMinutes: minutes, expiresAt },
      guessing: { group, minutes, failures },
    });
    this.logger.warn(
      `Blocked ${group} for ${minutes} minutes: ${failures} invalid voucher codes within ${window} minutes`,
    );
  }
}
