import { Global, Module } from '@nestjs/common';
import { RetentionJob } from './retention.job';
import { RetentionRegistry } from './retention.registry';

/**
 * The retention run (docs/product.md §1.5). It owns no table and imports no feature: each owner registers its
 * deletes in `RetentionRegistry` (global, so owners need not import this module).
 */
@Global()
@Module({
  providers: [RetentionRegistry, RetentionJob],
  exports: [RetentionRegistry],
})
export class RetentionModule {}
