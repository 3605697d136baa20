import { Injectable, OnModuleInit } from '@nestjs/common';
import { RetentionRegistry } from '../retention/retention.registry';
import { StatsRepository } from './stats.repository';

/**
 * After the retention run's deletes, the redemption day counters of past days are folded (one row per product and
 * day; not a removal, docs/architecture.md "Counters").
 */
@Injectable()
export class StatsRetention implements OnModuleInit {
  constructor(
    private readonly retention: RetentionRegistry,
    private readonly stats: StatsRepository,
  ) {}

  onModuleInit(): void {
    this.retention.afterDeletes(() => this.stats.foldPastDays());
  }
}
