import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

/**
 * Sliding-window counters shared by every API instance (docs/product.md §18.2): Redis when REDIS_URL is set,
 * this process otherwise. Times come from the caller (the injected Clock), never from the store, so a
 * test can move time forward without sleeping.
 */
export abstract class AttemptStore {
  /**
   * Records one attempt under `key` at `now` and answers how many fall within the last `windowMs`,
   * this one included. With `limit` > 0 an attempt beyond the limit is answered (limit + 1) but not
   * recorded, so a client that keeps hammering cannot grow the window without bound.
   */
  abstract hit(key: string, now: Date, windowMs: number, limit?: number): Promise<number>;
}

/** One counter: the times of the attempts still inside the window. */
@Injectable()
export class MemoryAttemptStore extends AttemptStore {
  private readonly windows = new Map<string, number[]>();

  async hit(key: string, now: Date, windowMs: number, limit = 0): Promise<number> {
    const at = now.getTime();
    const times = (this.windows.get(key) ?? []).filter((t) => t > at - windowMs);
    if (limit > 0 && times.length >= limit) {
      this.windows.set(key, times);
      return limit + 1;
    }
    times.push(at);
    this.windows.set(key, times);
    this.sweep(at, windowMs);
    return times.length;
  }

  /** Drops counters whose last attempt left the window, now and then, so idle addresses do not pile up. */
  private sweep(at: number, windowMs: number): void {
    if (this.windows.size < 10_000) return;
    for (const [key, times] of this.windows) if (times[times.length - 1] <= at - windowMs) this.windows.delete(key);
  }
}

/** A sorted set per key (score = time of the attempt), trimmed and counted in one Lua call. */
const HIT_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local n = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[3])
if limit > 0 and n >= limit then return limit + 1 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n + 1
`;

@Injectable()
export class RedisAttemptStore extends AttemptStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisAttemptStore.name);
  private readonly redis: Redis;
  private readonly prefix: string;
  /** Used while Redis cannot be reached: the limits keep working per instance instead of failing requests. */
  private readonly fallback = new MemoryAttemptStore();
  private sequence = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super();
    this.prefix = `${config.redisPrefix}:attempts:`;
    // No offline queue: while the connection is down a count fails at once and falls back to this process, instead
    // of every request waiting for the command timeout (a redemption took a second or more per counter while Redis
    // was down). The timeout still bounds a Redis that is connected but does not answer.
    this.redis = new Redis(config.redisUrl!, {
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      enableOfflineQueue: false,
    });
    this.redis.on('error', (err) => this.logger.warn(`Redis: ${err.message}`));
  }

  async hit(key: string, now: Date, windowMs: number, limit = 0): Promise<number> {
    const member = `${now.getTime()}:${process.pid}:${++this.sequence}:${Math.random().toString(36).slice(2)}`;
    try {
      const count = await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, now.getTime(), windowMs, limit, member);
      return Number(count);
    } catch (err) {
      this.logger.error(
        `Shared attempt counter unavailable, counting in this process: ${err instanceof Error ? err.message : err}`,
      );
      return this.fallback.hit(key, now, windowMs, limit);
    }
  }

  /** The first requests count in Redis, not in this process: the app serves once the connection is up (or failed). */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const settle = () => {
        this.redis.off('ready', settle).off('error', settle);
        resolve();
      };
      this.redis.once('ready', settle).once('error', settle);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export const attemptStoreProvider = {
  provide: AttemptStore,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig): AttemptStore =>
    config.redisUrl ? new RedisAttemptStore(config) : new MemoryAttemptStore(),
};
