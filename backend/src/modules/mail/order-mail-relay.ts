import { Injectable } from '@nestjs/common';
import { JobQueue } from '../jobs/job-queue';
import { RedemptionMailOutboxRepository } from '../redemption/redemption-mail-outbox.repository';
import { REDEMPTION_MAIL } from '../redemption/order-mail';

/** E-mails redeemed longer ago than this that no job has tried are left to the sweep (no worker ran that long). */
export const RELAY_WINDOW_MS = 10 * 60_000;
/**
 * Each read starts this far before the newest e-mail the previous ones found: a redemption's `redeemed_at` is its
 * statement's start, and one that started earlier may commit later. One that commits later still is the sweep's.
 */
export const RELAY_OVERLAP_MS = 2_000;
/** E-mails one read takes at most. */
export const RELAY_BATCH = 2_000;

/**
 * Queues the order e-mail of each new redemption from the workers, so the redemption's request queues nothing
 * (docs/architecture.md "E-mail (outbox)"). Every `MAIL_RELAY_INTERVAL_MS` it reads the e-mails no job has tried yet
 * (`findUnqueued`) redeemed after the newest it has seen less `RELAY_OVERLAP_MS`, oldest first, and queues each it
 * has not queued before. A queued e-mail leaves what it reads once its job claims it, so a backlog of queued ones
 * holds the reads back until the workers reach it. Every process that runs jobs runs its own: an e-mail two of them
 * queue is one job while it waits (`mail.send-order-email:<redemption>`), and the claim sends it once anyway.
 */
@Injectable()
export class OrderMailRelay {
  /** The newest `redeemed_at` read so far (none before the first e-mail). */
  private newest: Date | null = null;
  /** The e-mails queued within the overlap, with their `redeemed_at` (ms): a read that finds them again skips them. */
  private readonly queued = new Map<string, number>();

  constructor(
    private readonly outbox: RedemptionMailOutboxRepository,
    private readonly queue: JobQueue,
  ) {}

  /** One read: the number of e-mails it queued. */
  async run(): Promise<number> {
    const after = this.newest && new Date(this.newest.getTime() - RELAY_OVERLAP_MS);
    const due = await this.outbox.findUnqueued(after, RELAY_WINDOW_MS, RELAY_BATCH);
    let queued = 0;
    for (const { id, redeemed_at } of due) {
      if (!this.newest || redeemed_at > this.newest) this.newest = redeemed_at;
      if (this.queued.has(id)) continue;
      this.queued.set(id, redeemed_at.getTime());
      this.queue.add(REDEMPTION_MAIL, { redemptionId: id });
      queued++;
    }
    // What the next read cannot find again is forgotten.
    const oldest = (this.newest?.getTime() ?? 0) - RELAY_OVERLAP_MS;
    for (const [id, at] of this.queued) if (at <= oldest) this.queued.delete(id);
    return queued;
  }
}
