import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { defineJob } from '../jobs/job';
import { JobRegistry } from '../jobs/job-registry';
import { RetentionRegistry } from './retention.registry';

/** Daily: deletes what each owner keeps past its retention period (docs/product.md §1.5). */
export const RETENTION_CLEANUP = defineJob<object>('retention.clean-up', { formerNames: ['retention-cleanup'] });

/**
 * docs/product.md §1.5 retention, run every RETENTION_INTERVAL_MS (and at start without Redis): every owner's
 * batched deletes (`RetentionRegistry`), then what they do after (the day counters' folding); one audit row
 * for a run that removed anything.
 */
@Injectable()
export class RetentionJob implements OnModuleInit {
  private readonly logger = new Logger('Retention');

  constructor(
    private readonly jobs: JobRegistry,
    private readonly parts: RetentionRegistry,
    private readonly events: DomainEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(RETENTION_CLEANUP, { handle: () => this.run() });
    this.jobs.schedule(RETENTION_CLEANUP, this.config.retentionIntervalMs, {});
  }

  async run(): Promise<Record<string, number>> {
    const result = await this.parts.run();
    const total = Object.values(result).reduce((a, b) => a + b, 0);
    // A run that removed nothing changed nothing: no audit row (every process start runs it once).
    if (total) {
      this.logger.log(`Retention removed ${JSON.stringify(result)}`);
      await this.events.publish('system.retention', { success: true, resource: 'system', details: { ...result } });
    }
    return result;
  }
}
