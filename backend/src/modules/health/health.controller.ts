import { Controller, Get, Inject, OnModuleDestroy } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import Redis from 'ioredis';
import { Public } from '../../common/decorators/public.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

@ApiTags('public')
@Controller('health')
export class HealthController implements OnModuleDestroy {
  private readonly redis?: Redis;

  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    if (config.redisUrl) {
      this.redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
      this.redis.on('error', () => undefined);
    }
  }

  @Public()
  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Database and (when configured) Redis reachability; 503 when one is down' })
  check() {
    const checks = [() => this.db.pingCheck('database', { timeout: 3000 })];
    if (this.redis) checks.push(() => this.pingRedis() as never);
    return this.health.check(checks);
  }

  private async pingRedis() {
    const indicator = this.indicators.check('redis');
    try {
      if (this.redis!.status === 'wait' || this.redis!.status === 'end') await this.redis!.connect().catch(() => undefined);
      await this.redis!.ping();
      return indicator.up();
    } catch (err) {
      return indicator.down({ message: err instanceof Error ? err.message : String(err) });
    }
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}
