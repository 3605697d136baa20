import { INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import Redis from 'ioredis';
import { Server } from 'socket.io';

/** @nestjs/platform-socket.io carries its own copy of socket.io; use its Server and options types. */
type IoServer = ReturnType<IoAdapter['createIOServer']>;
type IoServerOptions = Parameters<IoAdapter['createIOServer']>[1];

/**
 * socket.io with the Redis adapter (docs/product.md §17.1): a dataUpdate emitted on one API instance reaches
 * admins connected to any instance. One publisher and one subscriber connection per process.
 */
export class RedisIoAdapter extends IoAdapter {
  private readonly redisLogger = new Logger(RedisIoAdapter.name);
  private readonly pub: Redis;
  private readonly sub: Redis;

  constructor(
    app: INestApplicationContext,
    redisUrl: string,
    private readonly keyPrefix: string,
  ) {
    super(app);
    this.pub = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    this.sub = this.pub.duplicate();
    for (const client of [this.pub, this.sub]) {
      // Without a listener an 'error' event (Redis down) would crash the process; ioredis reconnects by itself.
      client.on('error', (err) => this.redisLogger.warn(`Redis (socket.io adapter): ${err.message}`));
    }
    reportFailedPublishes(this.pub, this.redisLogger);
    reportFailedSubscribes(this.sub, this.redisLogger);
  }

  createIOServer(port: number, options?: IoServerOptions): IoServer {
    const server: IoServer = super.createIOServer(port, options);
    server.adapter(createAdapter(this.pub, this.sub, { key: `${this.keyPrefix}:socket.io` }));
    return server;
  }

  async close(server: IoServer): Promise<void> {
    await super.close(server);
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}

/**
 * A worker process (`npm run worker`) serves no socket.io endpoint, yet its jobs announce e-mail outcomes: a
 * socket.io server that never listens, with the same Redis adapter, publishes them to every API instance.
 */
export function workerEventServer(redisUrl: string, keyPrefix: string): { server: Server; close: () => Promise<void> } {
  const logger = new Logger('WorkerEvents');
  const pub = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const sub = pub.duplicate();
  for (const client of [pub, sub]) {
    client.on('error', (err) => logger.warn(`Redis (socket.io adapter): ${err.message}`));
  }
  reportFailedPublishes(pub, logger);
  reportFailedSubscribes(sub, logger);
  const server = new Server();
  server.adapter(createAdapter(pub, sub, { key: `${keyPrefix}:socket.io` }));
  return {
    server,
    // Nothing listens, so there is no engine to close (Server.close would throw): the Redis clients are all.
    close: async () => {
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}

/**
 * The Redis adapter publishes without waiting for the answer, so a publish that fails (the connection already
 * closed by a shutdown while a job still announces its outcome) would be an unhandled rejection that stops the
 * process. Each publish gets a handler that logs the failure; the adapter still receives the same promise.
 */
function reportFailedPublishes(pub: Redis, logger: Logger): void {
  const publish = pub.publish.bind(pub) as (channel: string, message: string | Buffer) => Promise<number>;
  (pub as unknown as { publish: typeof publish }).publish = (channel, message) => {
    const sent = publish(channel, message);
    sent.catch((err: Error) => logger.warn(`dataUpdate not published: ${err.message}`));
    return sent;
  };
}

/**
 * The adapter subscribes without waiting for the answer either: a process closed while its subscription is still on
 * the way (a short-lived worker on a loaded machine) would reject it with nobody listening. Logged the same way.
 */
function reportFailedSubscribes(sub: Redis, logger: Logger): void {
  for (const method of ['subscribe', 'psubscribe'] as const) {
    const original = (sub[method] as (...args: unknown[]) => Promise<unknown>).bind(sub);
    (sub as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const done = original(...args);
      done.catch((err: Error) => logger.warn(`socket.io subscription not made: ${err.message}`));
      return done;
    };
  }
}
