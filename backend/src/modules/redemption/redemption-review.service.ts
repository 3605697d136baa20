import { Injectable, NotFoundException, Optional } from '@nestjs/common';
import { RequestActor } from '../../common/utils/request-actor';
import { DomainEvents } from '../../events/domain-events.service';
import { JobQueue } from '../jobs/job-queue';
import { REDEMPTION_MAIL } from './order-mail';
import { PoolAssignmentService } from './pool-assignment.service';
import { RedeemRisk } from './redeem-risk';
import { DecidedRedemption, RedemptionReviewRepository } from './redemption-review.repository';

export const REVIEW_MESSAGES = {
  notHeld: 'No redemption held for review with that id.',
  approved: 'Redemption approved.',
  refused: 'Redemption refused.',
} as const;

/**
 * Staff decide a held redemption (DECISIONS §18). Approve: a key from the pool (else it waits in the backorder
 * queue like any redemption without one) and the order e-mail; the success page shows the key from then on. Refuse:
 * the code is refunded and optional blocklist entries are added. Each decision is audited.
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

  async approve(id: string, actor: RequestActor) {
    const row = await this.reviews.approve(id);
    if (!row) throw new NotFoundException(REVIEW_MESSAGES.notHeld);
    const keyed = row.isLicenseManaged ? await this.pool.assignFromPool(id) : true;
    if (keyed) this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    await this.audit('review.approve', row, actor, { keyAssigned: row.isLicenseManaged && keyed });
    return { success: true as const, message: REVIEW_MESSAGES.approved };
  }

  async refuse(id: string, blocklist: Array<'email' | 'address' | 'phone'>, actor: RequestActor) {
    const row = await this.reviews.refuse(id);
    if (!row) throw new NotFoundException(REVIEW_MESSAGES.notHeld);
    const entries = blocklist
      .map((kind) => ({
        kind,
        value: kind === 'email' ? row.customerEmail : kind === 'phone' ? row.phone : row.ipAddress,
      }))
      .filter((e): e is { kind: 'email' | 'address' | 'phone'; value: string } => !!e.value);
    if (entries.length) await this.risk?.block(entries);
    await this.audit('review.refuse', row, actor, { blocklisted: entries });
    return { success: true as const, message: REVIEW_MESSAGES.refused };
  }

  private async audit(
    action: 'review.approve' | 'review.refuse',
    row: DecidedRedemption,
    actor: RequestActor,
    details: Record<string, unknown>,
  ) {
    await this.events.publish(action, {
      ...actor,
      success: true,
      resource: 'redemption',
      resourceId: row.id,
      details: { voucherCode: row.voucherCode, ...details },
    });
  }
}
