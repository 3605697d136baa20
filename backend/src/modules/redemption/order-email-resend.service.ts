import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { JobQueue } from '../jobs/job-queue';
import { REDEMPTION_MAIL } from './order-mail';
import { AttemptStore } from '../attempts/attempt-store';
import { CodeGuessingService } from './code-guessing.service';
import { ResendOrderEmailDto } from './dto/resend-order-email.dto';
import { RedemptionRepository } from './redemption.repository';
import { DomainEvents } from '../../events/domain-events.service';

/** docs/product.md §19.2: the one answer of `POST /api/resend-order-email`, whatever the input. */
export const RESEND_ANSWER = {
  message: 'If this voucher was redeemed with this e-mail address, the order e-mail is on its way again.',
} as const;

/** At most this many self-service resends per redemption within RESEND_WINDOW_MS. */
export const RESENDS_PER_REDEMPTION = 3;
const RESEND_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * "Didn't get the e-mail?" (docs/product.md §19.2): the customer asks for the order e-mail again with the voucher code and
 * the e-mail address of the redemption. The answer never tells whether the code exists, whether the address
 * matches, or whether an e-mail left: an unknown code counts towards the code-guessing block like a failed
 * redeem; a matching redemption with a licence gets the e-mail through the outbox (status back to pending, a job
 * queued), at most RESENDS_PER_REDEMPTION times in 24 hours, counted in the store every instance shares.
 * A redemption waiting for a key (manual processing) or refunded after redemption gets nothing.
 */
@Injectable()
export class OrderEmailResendService {
  private readonly logger = new Logger(OrderEmailResendService.name);

  constructor(
    private readonly redemptions: RedemptionRepository,
    private readonly attempts: AttemptStore,
    private readonly guessing: CodeGuessingService,
    private readonly jobs: JobQueue,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
  ) {}

  async resend(dto: ResendOrderEmailDto, ip: string, userAgent: string | null): Promise<typeof RESEND_ANSWER> {
    const found = await this.redemptions.findForCustomerResend(dto.voucherCode, dto.email);
    if (!found) {
      await this.guessing.noteFailedGuess(ip, userAgent);
      return RESEND_ANSWER;
    }
    const { redemptionId } = found;
    if (!redemptionId || !found.hasLicence || found.refunded) return RESEND_ANSWER;
    await this.sendAgain(redemptionId, ip, userAgent, 'customer');
    return RESEND_ANSWER;
  }

  /**
   * The licence centre's resend (docs/product.md §21): the signed-in customer names one of their own
   * redemptions (the caller checked it is theirs), with the same limits and the same silence as above.
   */
  async resendOwn(redemptionId: string, ip: string, userAgent: string | null): Promise<void> {
    const found = await this.redemptions.resendStateOf(redemptionId);
    if (!found || !found.hasLicence || found.refunded) return;
    await this.sendAgain(redemptionId, ip, userAgent, 'licence-centre');
  }

  /** At most RESENDS_PER_REDEMPTION per 24 hours: the e-mail is made due again and queued; audited either way. */
  private async sendAgain(redemptionId: string, ip: string, userAgent: string | null, by: string): Promise<void> {
    const count = await this.attempts.hit(
      `resend:${redemptionId}`,
      this.clock.now(),
      RESEND_WINDOW_MS,
      RESENDS_PER_REDEMPTION,
    );
    const allowed = count <= RESENDS_PER_REDEMPTION;
    let code: string | undefined;
    if (allowed) {
      // undefined only if the redemption was deleted or lost its licence in between: nothing to send then.
      code = (await this.redemptions.requeueEmail(redemptionId))?.code;
      if (!code) return;
      this.jobs.add(REDEMPTION_MAIL, { redemptionId });
    }
    await this.events.publish('redemption.customer-resend', {
      success: allowed,
      resource: 'redemption',
      resourceId: redemptionId,
      ipAddress: ip,
      userAgent,
      details: allowed ? { by } : { by, reason: 'limit', limit: RESENDS_PER_REDEMPTION },
      voucherCode: code,
    });
    if (!allowed) this.logger.log(`Resend limit reached for redemption ${redemptionId}`);
  }
}
