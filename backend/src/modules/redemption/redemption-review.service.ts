import { ConflictException, Injectable, NotFoundException, Optional } from '@nestjs/common';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { RequestActor } from '../../common/utils/request-actor';
import { DomainEvents } from '../../events/domain-events.service';
import { JobQueue } from '../jobs/job-queue';
import { REDEMPTION_MAIL } from './order-mail';
import { PoolAssignmentService } from './pool-assignment.service';
import { RedeemRisk } from './redeem-risk';
import { RedemptionReviewRepository } from './redemption-review.repository';
import { REVIEW_REFUSAL_MAIL } from './review-mail';

export const REVIEW_MESSAGES = {
  notHeld: 'No redemption held for review with that id.',
  approved: 'Redemption approved.',
  refused: 'Redemption refused.',
  alreadyApproved: 'This redemption was already approved.',
  alreadyRefused: 'This redemption was already refused.',
} as const;

/**
 * Staff decide a held redemption (docs/product.md §25.3). Approve: a key from the pool (else it waits in the backorder
 * queue like any redemption without one) and the order e-mail; the success page shows the key from then on. Refuse:
 * the code is refunded, the customer is told to contact support, optional blocklist entries are added. The decision
 * is one conditional UPDATE: of two reviewers deciding at once one decides, the other (and any repeat) gets 409 with
 * the decision made. Each decision publishes its event (audit row, webhook, real time).
 */
@Injectable()
export class RedemptionReviewService {
  constructor(
    private readonly reviews: RedemptionReviewRepository,
    private readonly pool: PoolAssignmentService,
    private readonly jobs: JobQueue,
    private readonly events: DomainEvents,
    @Optional() private readonly risk?: RedeemRisk,
  ) {}

  list(limit = 50, offset = 0) {
    return this.reviews.held(limit, offset);
  }

  /** A held case's evidence (docs/product.md §25.3), with its phone's country as the phone rule reads it. */
  async evidence(id: string) {
    const found = await this.reviews.evidence(id);
    if (!found) throw new NotFoundException(REVIEW_MESSAGES.notHeld);
    const phoneCountry = (found.phone && parsePhoneNumberFromString(found.phone)?.country) || null;
    return { ...found, phoneCountry };
  }

  async approve(id: string, actor: RequestActor) {
    const row = await this.reviews.approve(id);
    if (!row) return this.decided(id);
    const keyed = row.isLicenseManaged ? await this.pool.assignFromPool(id) : true;
    if (keyed) this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    await this.events.publish('review.approve', {
      ...actor,
      success: true,
      resource: 'redemption',
      resourceId: row.id,
      details: { voucherCode: row.voucherCode, keyAssigned: row.isLicenseManaged && keyed },
      redemptionId: row.id,
      voucherCode: row.voucherCode,
      productId: row.productId,
      productName: row.productName,
      keyAssigned: row.isLicenseManaged && keyed,
    });
    return { success: true as const, message: REVIEW_MESSAGES.approved };
  }

  async refuse(id: string, blocklist: Array<'email' | 'address' | 'phone'>, actor: RequestActor) {
    const row = await this.reviews.refuse(id);
    if (!row) return this.decided(id);
    const entries = blocklist
      .map((kind) => ({
        kind,
        value: kind === 'email' ? row.customerEmail : kind === 'phone' ? row.phone : row.ipAddress,
      }))
      .filter((e): e is { kind: 'email' | 'address' | 'phone'; value: string } => !!e.value);
    if (entries.length) await this.risk?.block(entries);
    this.jobs.add(REVIEW_REFUSAL_MAIL, { redemptionId: id });
    await this.events.publish('review.refuse', {
      ...actor,
      success: true,
      resource: 'redemption',
      resourceId: row.id,
      details: { voucherCode: row.voucherCode, blocklisted: entries },
      redemptionId: row.id,
      voucherCode: row.voucherCode,
      productName: row.productName,
      blocklisted: entries.map((e) => e.kind),
    });
    return { success: true as const, message: REVIEW_MESSAGES.refused };
  }

  /** No held redemption changed: 409 naming the decision already made, else 404. */
  private async decided(id: string): Promise<never> {
    const decision = await this.reviews.decision(id);
    if (decision === 'approved') throw new ConflictException(REVIEW_MESSAGES.alreadyApproved);
    if (decision === 'refused') throw new ConflictException(REVIEW_MESSAGES.alreadyRefused);
    throw new NotFoundException(REVIEW_MESSAGES.notHeld);
  }
}
