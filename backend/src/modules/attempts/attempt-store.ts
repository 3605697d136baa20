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

  /**
   * Records one attempt at `now` under each key, without a limit (one round trip for all of them), and answers how
   * many fall within each key's last `windowMs` (this one included), with a way to take this attempt back (what it
   * counted did not happen after all). Two racing calls on one key answer totals one apart.
   */
  abstract take(counters: Array<{ key: string; windowMs: number }>, now: Date): Promise<TakenAttempts>;
}

export interface TakenAttempts {
  /** Each counter's total, in the order given. */
  totals: number[];
  takeBack(): Promise<void>;
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

  async take(counters: Array<{ key: string; windowMs: number }>, now: Date): Promise<TakenAttempts> {
    const at = now.getTime();
    const totals: number[] = [];
    for (const { key, windowMs } of counters) totals.push(await this.hit(key, now, windowMs));
    return {
      totals,
      takeBack: async () => {
        for (const { key } of counters) {
          const times = this.windows.get(key);
          const i = times ? times.lastIndexOf(at) : -1;
          if (i >= 0) times!.splice(i, 1);
        }
      },
    };
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

/**
 * `take`: the same window per key (ARGV: now, the attempt's member, then each key's window), one attempt added to
 * each; answers the totals.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local totals = {}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[i + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, window)
  totals[i] = redis.call('ZCARD', key)
end
return totals
`;

/** ioredis with `take`'s script defined (sent once, then run by its SHA-1). */
type WithTake = Redis & { attemptsTake(keys: number, ...args: Array<string | number>): Promise<number[]> };

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
      // Commands of one event-loop turn (several requests' counters) go out in one write, their answers come back in
      // one read: under load a counter costs the API a fraction of a round trip's CPU.
      enableAutoPipelining: true,
    });
    this.redis.on('error', (err) => this.logger.warn(`Redis: ${err.message}`));
    this.redis.defineCommand('attemptsTake', { lua: TAKE_SCRIPT });
  }

  async hit(key: string, now: Date, windowMs: number, limit = 0): Promise<number> {
    try {
      return await this.shared(key, now, windowMs, limit, this.member(now));
    } catch (err) {
      this.unavailable(err);
      return this.fallback.hit(key, now, windowMs, limit);
    }
  }

  async take(counters: Array<{ key: string; windowMs: number }>, now: Date): Promise<TakenAttempts> {
    const member = this.member(now);
    const keys = counters.map((c) => this.prefix + c.key);
    try {
      const totals = await (this.redis as WithTake).attemptsTake(
        keys.length,
        ...keys,
        now.getTime(),
        member,
        ...counters.map((c) => c.windowMs),
      );
      return {
        totals: totals.map(Number),
        takeBack: async () => {
          await Promise.all(
            keys.map((key) => this.redis.zrem(key, member).catch((err: unknown) => this.unavailable(err))),
          );
        },
      };
    } catch (err) {
      this.unavailable(err);
      return this.fallback.take(counters, now);
    }
  }

  private member(now: Date): string {
    return `${now.getTime()}:${process.pid}:${++this.sequence}:${Math.random().toString(36).slice(2)}`;
  }

  private async shared(key: string, now: Date, windowMs: number, limit: number, member: string): Promise<number> {
    return Number(await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, now.getTime(), windowMs, limit, member));
  }

  private unavailable(err: unknown): void {
    this.logger.error(
      `Shared attempt counter unavailable, counting in this process: ${err instanceof Error ? err.message : err}`,
    );
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
