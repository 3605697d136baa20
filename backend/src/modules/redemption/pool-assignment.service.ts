import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { LicenseRepository } from '../license/license.repository';
import { RedemptionRepository } from './redemption.repository';

/** Waiting for a locked key can end with that key full; try the next one a bounded number of times. */
const MAX_POOL_TRIES = 20;

/**
 * Hands out keys of the licence pool to redemptions waiting for one. Concurrency is settled by PostgreSQL:
 * the redemption and the key rows are locked while the activation count goes up, and a CHECK constraint keeps
 * current_activations <= max_activations.
 */
@Injectable()
export class PoolAssignmentService {
  constructor(
    private readonly database: DatabaseService,
    private readonly redemptions: RedemptionRepository,
    private readonly licenses: LicenseRepository,
  ) {}

  /**
   * Assigns a free key of the redemption's product to a redemption that is waiting for one.
   * Unlike the redemption's own SKIP LOCKED attempt this waits for locked keys, so a volume key being
   * used by a concurrent redemption is still found when it has room left.
   * Returns false when the redemption is not waiting or no key has room.
   */
  async assignFromPool(redemptionId: string): Promise<boolean> {
    for (let i = 0; i < MAX_POOL_TRIES; i++) {
      const result = await this.database.transaction(async () => {
        // Lock the redemption first: two fixers never assign two keys to one redemption.
        const redemption = await this.redemptions.lockAwaiting(redemptionId);
        if (!redemption) return 'not-waiting' as const;
        const key = await this.licenses.lockFreeKey(redemption.productId);
        if (!key) {
          return (await this.licenses.hasFreeKey(redemption.productId)) ? ('retry' as const) : ('none' as const);
        }
        await this.licenses.assignPoolKey(key.id, redemptionId);
        await this.redemptions.clearAwaiting(redemptionId);
        return 'assigned' as const;
      });
      if (result !== 'retry') return result === 'assigned';
    }
    return false;
  }

  /**
   * Gives the redemptions waiting for a key (of `productIds`, else of any product) a free pool key each, oldest
   * first, as far as the pools go: Fix Pending Emails, and keys added to a pool (backorders). Returns the redemptions
   * that got one and their products, once each; their e-mails are the caller's to queue.
   */
  async assignWaiting(productIds?: string[]): Promise<{ assignedIds: string[]; productIds: string[] }> {
    const waiting = await this.redemptions.findWaitingWithFreeKey(productIds);
    const assignedIds: string[] = [];
    const assignedProducts = new Set<string>();
    const exhausted = new Set<string>();
    for (const w of waiting) {
      if (exhausted.has(w.productId)) continue;
      if (await this.assignFromPool(w.id)) {
        assignedIds.push(w.id);
        assignedProducts.add(w.productId);
        continue;
      }
      if (!(await this.licenses.hasFreeKey(w.productId))) exhausted.add(w.productId);
    }
    return { assignedIds, productIds: [...assignedProducts] };
  }
}
