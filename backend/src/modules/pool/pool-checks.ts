import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { JobQueue } from '../jobs/job-queue';
import { CHECK_POOL } from './pool.jobs';

/** A redemption that used a pool key checks its product's pool at most this often (per process). */
export const POOL_CHECK_THROTTLE_MS = 60_000;

/**
 * The pool check a use of a product's pool asks for (`PoolListener`: a redemption, Fix Pending Emails' pool keys),
 * throttled per product.
 */
@Injectable()
export class PoolChecks implements OnApplicationShutdown {
  private readonly checks = new Map<string, { at: number; trailing?: NodeJS.Timeout }>();

  constructor(
    private readonly queue: JobQueue,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks the product's pool, but at most once a minute per product so a burst of redemptions runs one forecast,
   * not one each. A use inside the minute schedules one check at its end, so the redemption that crosses the line is
   * always looked at (the daily check covers a process that stops).
   */
  notePoolUse(productId: string): void {
    const now = this.clock.now().getTime();
    const last = this.checks.get(productId);
    if (!last || now - last.at >= POOL_CHECK_THROTTLE_MS) return this.checkNow(productId);
    if (last.trailing) return;
    last.trailing = setTimeout(() => this.checkNow(productId), last.at + POOL_CHECK_THROTTLE_MS - now);
    last.trailing.unref();
  }

  private checkNow(productId: string): void {
    const last = this.checks.get(productId);
    if (last?.trailing) clearTimeout(last.trailing);
    this.checks.set(productId, { at: this.clock.now().getTime() });
    this.queue.add(CHECK_POOL, { productId });
  }

  /** Stops the trailing checks (shutdown). */
  onApplicationShutdown(): void {
    for (const check of this.checks.values()) if (check.trailing) clearTimeout(check.trailing);
    this.checks.clear();
  }
}
