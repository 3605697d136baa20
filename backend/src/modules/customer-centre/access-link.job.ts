import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobRun } from '../jobs/job';
import { JobQueue } from '../jobs/job-queue';
import { JobRegistry } from '../jobs/job-registry';
import { mailJobPolicy } from '../mail/mail.jobs';
import { RetentionRegistry } from '../retention/retention.registry';
import { AccessLinkService } from './access-link.service';
import { SEND_ACCESS_LINK, SWEEP_ACCESS_LINKS } from './customer-centre.jobs';

/**
 * The sign-in links' jobs (docs/product.md §21): the e-mail (the order e-mail's retry policy, on the mail queue),
 * the sweep of links whose job was lost, and their retention (a day after they were asked for).
 */
@Injectable()
export class AccessLinkJob implements OnModuleInit {
  private readonly logger = new Logger('AccessLinkJob');

  constructor(
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
    private readonly links: AccessLinkService,
    private readonly retention: RetentionRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(SEND_ACCESS_LINK, {
      ...mailJobPolicy(this.config),
      jobId: ({ linkId }) => linkId,
      handle: ({ linkId }, run) => this.send(linkId, run),
    });
    this.jobs.register(SWEEP_ACCESS_LINKS, { handle: () => this.sweep() });
    this.jobs.schedule(SWEEP_ACCESS_LINKS, this.config.mailSweepIntervalMs, {});
    this.retention.deletes('customerAccessLinks', (batch) => this.links.deleteOld(batch));
  }

  send(linkId: string, run: JobRun) {
    return this.links.deliver(linkId, run.attempt, run.attempts);
  }

  /** Sign-in links pending with no live job: queued again. */
  async sweep(): Promise<number> {
    const ids = await this.links.findStalePending(this.config.mailSweepAfterMs);
    for (const linkId of ids) this.queue.add(SEND_ACCESS_LINK, { linkId });
    if (ids.length) this.logger.log(`Re-queued ${ids.length} sign-in link(s)`);
    return ids.length;
  }
}
