import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { defineJob } from '../jobs/job';
import { JobRegistry } from '../jobs/job-registry';
import { LicensePoolStartRepository } from './license-pool-start.repository';

/** Moves every product's pool start to its first key with room (docs/architecture.md "The pool's start"). */
export const ADVANCE_POOL_STARTS = defineJob<object>('license.advance-pool-starts', {
  formerNames: ['advance-pool-starts'],
});

/**
 * Every POOL_START_INTERVAL_MS (one second): between two runs a redemption's scan walks past at most the keys taken
 * since the last one, whatever the time since the last VACUUM. A run that cannot happen (Redis or the workers down)
 * costs only speed: the starts stay where they are, and a redemption that finds no key after its start retries from
 * the pool's beginning (PoolAssignmentService).
 */
@Injectable()
export class PoolStartJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobRegistry,
    private readonly starts: LicensePoolStartRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(ADVANCE_POOL_STARTS, { handle: () => this.starts.advance() });
    this.jobs.schedule(ADVANCE_POOL_STARTS, this.config.poolStartIntervalMs, {});
  }
}
