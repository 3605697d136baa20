import { Module } from '@nestjs/common';
import { AttemptStore, attemptStoreProvider } from './attempt-store';

/**
 * The sliding-window attempt counters every instance shares (Redis with REDIS_URL, this process otherwise): one store
 * for the public routes' defences (redemption) and the API tokens' rate limit (auth).
 */
@Module({
  providers: [attemptStoreProvider],
  exports: [AttemptStore],
})
export class AttemptsModule {}
