import { ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { CodeGuessingService } from './code-guessing.service';
import { RiskVerdict } from './redeem-risk';
import { RedemptionRepository } from './redemption.repository';

/** docs/product.md §25.2: what a redemption a risk rule refuses answers (403). */
export const riskRefusedMessage = (supportEmail: string) =>
  `We could not complete this redemption. Please contact support at ${supportEmail}.`;

/** 403 of a refusing rule; the metric's outcome reads it. */
export class RiskRefusedException extends ForbiddenException {}

/**
 * A redemption a risk rule refused, before its code was claimed: the code stays unredeemed, the rules' counters take
 * it back, an audit row names the rules, and it counts as a guess only when the code was unknown (a guesser behind a
 * refusing rule is still blocked; a real customer's known code is not a guess).
 */
@Injectable()
export class RiskRefusal {
  constructor(
    private readonly redemptions: RedemptionRepository,
    private readonly guessing: CodeGuessingService,
    private readonly events: DomainEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async refuse(verdict: RiskVerdict, code: string, meta: { ip: string; userAgent: string | null }): Promise<never> {
    await verdict.undo();
    const known = await this.redemptions.codeKnown(code);
    if (!known) await this.guessing.noteFailedGuess(meta.ip, meta.userAgent);
    await this.events.publish('redemption.risk-refused', {
      success: false,
      resource: 'voucher-code',
      resourceId: null,
      ipAddress: meta.ip || null,
      userAgent: meta.userAgent,
      details: {
        voucherCode: code,
        codeKnown: known,
        rules: verdict.findings.filter((f) => f.action === 'refuse').map(({ rule, evidence }) => ({ rule, evidence })),
      },
    });
    throw new RiskRefusedException(riskRefusedMessage(this.config.supportEmail));
  }
}
