import { Injectable } from '@nestjs/common';
import { DomainEventMap as Events } from '../../events/domain-events';
import { DomainEvents, OnDomainEvent } from '../../events/domain-events.service';
import { JobQueue } from '../jobs/job-queue';
import { REDEMPTION_MAIL } from './order-mail';
import { PoolAssignmentService } from './pool-assignment.service';

/**
 * Backorders: keys joined a product's pool, so its redemptions waiting for a key get one, oldest first, as far as the
 * new activations go (Fix Pending Emails' assignment, without the admin), and their order e-mails are queued. Two
 * adds or two instances racing are settled by the assignment's locks (a redemption gets one key; a key never passes
 * its activation limit); an e-mail queued twice is claimed once.
 */
@Injectable()
export class BackorderListener {
  constructor(
    private readonly pool: PoolAssignmentService,
    private readonly jobs: JobQueue,
    private readonly events: DomainEvents,
  ) {}

  @OnDomainEvent('license.keys-added', 'after-commit')
  async keysAdded(e: Events['license.keys-added']): Promise<void> {
    const { assignedIds, productIds } = await this.pool.assignWaiting(e.productIds);
    if (!assignedIds.length) return;
    for (const redemptionId of assignedIds) this.jobs.add(REDEMPTION_MAIL, { redemptionId });
    await this.events.publish('redemption.backorders-filled', { redemptionIds: assignedIds, productIds });
  }
}
