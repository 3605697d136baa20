import { INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import Redis from 'ioredis';

/** @nestjs/platform-socket.io carries its own copy of socket.io; use its Server and options types. */
type IoServer = ReturnType<IoAdapter['createIOServer']>;
type IoServerOptions = Parameters<IoAdapter['createIOServer']>[1];

/**
 * socket.io with the Redis adapter (DECISIONS §11): a dataUpdate emitted on one API instance reaches
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
