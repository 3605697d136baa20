/** A redemption that used a pool key checks its product's pool at most this often (per process). */
export const POOL_CHECK_THROTTLE_MS = 60_000;

/**
 * Where work is handed to the job processors: Bull on Redis when REDIS_URL is set, the API process
 * itself otherwise. Callers never wait on it and it never throws: a job that cannot be queued is
 * found again by the pending-mail sweep, because the database row is the source of truth.
 */
export abstract class JobQueue {
  private readonly poolChecks = new Map<string, { at: number; trailing?: NodeJS.Timeout }>();

  abstract enqueueRedemptionMail(redemptionId: string): void;

  /** Sends one low-pool alert (a `pool_alerts` row) by e-mail. */
  abstract enqueuePoolAlert(alertId: string): void;

  /** Sends one licence-centre sign-in link (a `customer_access_links` row) by e-mail. */
  abstract enqueueCustomerLink(linkId: string): void;

  /** Checks one product's pool (or every licence-managed product's, null) and raises the alerts due. */
  abstract enqueuePoolCheck(productId: string | null): void;

  /** E-mail jobs queued, running or waiting for a retry (the queue's depth). */
  abstract pendingMailJobs(): Promise<number>;

  /**
   * One attempt of a webhook delivery after `delayMs`. `attempt` (attempts already made) keys the job, so the retry a
   * running attempt schedules is not taken for a duplicate of itself.
   */
  abstract enqueueWebhookDelivery(deliveryId: string, attempt: number, delayMs: number): void;

  /** Webhook jobs queued, running or waiting for their next attempt. */
  abstract pendingWebhookJobs(): Promise<number>;

  /**
   * A redemption or assignment took keys of the product's pool: check it, but at most once a minute per product so
   * a burst of redemptions runs one forecast, not one each. A use inside the minute schedules one check at its end,
   * so the redemption that crosses the line is always looked at (the daily check covers a process that stops).
   */
  notePoolUse(productId: string): void {
    const now = Date.now();
    const last = this.poolChecks.get(productId);
    if (!last || now - last.at >= POOL_CHECK_THROTTLE_MS) return this.checkPoolNow(productId);
    if (last.trailing) return;
    last.trailing = setTimeout(() => this.checkPoolNow(productId), last.at + POOL_CHECK_THROTTLE_MS - now);
    last.trailing.unref();
  }

  private checkPoolNow(productId: string): void {
    const last = this.poolChecks.get(productId);
    if (last?.trailing) clearTimeout(last.trailing);
    this.poolChecks.set(productId, { at: Date.now() });
    this.enqueuePoolCheck(productId);
  }

  /** Stops the trailing checks (shutdown). */
  protected stopPoolChecks(): void {
    for (const check of this.poolChecks.values()) if (check.trailing) clearTimeout(check.trailing);
    this.poolChecks.clear();
  }
}
