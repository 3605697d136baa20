import { Controller, Get, HttpStatus, Inject, Logger, OnModuleDestroy, Res } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptions, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';
import Redis from 'ioredis';
import { Public } from '../../common/decorators/public.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

type DependencyStatus = { status: 'up' | 'down' };

/** Terminus's shape, but each dependency reports its status only: no error text ever leaves the server. */
export interface HealthReport {
  status: 'ok' | 'error';
  info: Record<string, DependencyStatus>;
  error: Record<string, DependencyStatus>;
  details: Record<string, DependencyStatus>;
}

const dependencies: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'object', properties: { status: { type: 'string', enum: ['up', 'down'] } } },
  example: { database: { status: 'up' } },
};

class HealthResponse {
  @ApiProperty({ enum: ['ok', 'error'] }) status: string;
  @ApiProperty(dependencies) info: Record<string, DependencyStatus>;
  @ApiProperty(dependencies) error: Record<string, DependencyStatus>;
  @ApiProperty(dependencies) details: Record<string, DependencyStatus>;
}

@ApiTags('public')
@Controller('health')
export class HealthController implements OnModuleDestroy {
  private readonly logger = new Logger('Health');
  private readonly redis?: Redis;

  constructor(
    private readonly db: TypeOrmHealthIndicator,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    if (config.redisUrl) {
      this.redis = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
      });
      this.redis.on('error', () => undefined);
    }
  }

  @Public()
  @Get()
  @ApiOperation({
    summary: 'Database and (when configured) Redis reachability; 503 when one is down',
    description: 'Each dependency answers {status: "up" | "down"} only; the reason is logged, never returned.',
  })
  @ApiResponse({ status: 200, description: 'Every dependency up', type: HealthResponse })
  @ApiResponse({
    status: 503,
    description: 'A dependency down: e.g. error.database = {status:"down"}',
    type: HealthResponse,
  })
  async check(@Res({ passthrough: true }) res: Response): Promise<HealthReport> {
    const checks: Array<[string, () => Promise<void>]> = [['database', () => this.pingDatabase()]];
    if (this.redis) checks.push(['redis', () => this.pingRedis()]);
    const results = await Promise.all(
      checks.map(async ([name, run]) => {
        try {
          await run();
          return [name, 'up'] as const;
        } catch (err) {
          // Internal detail (hosts, users, driver messages) goes to the log only.
          this.logger.warn(`${name} health check failed: ${err instanceof Error ? err.message : String(err)}`);
          return [name, 'down'] as const;
        }
      }),
    );
    const report: HealthReport = { status: 'ok', info: {}, error: {}, details: {} };
    for (const [name, status] of results) {
      report.details[name] = { status };
      if (status === 'up') report.info[name] = { status };
      else report.error[name] = { status };
    }
    if (Object.keys(report.error).length > 0) {
      report.status = 'error';
      res.status(HttpStatus.SERVICE_UNAVAILABLE);
    }
    return report;
  }

  /** Terminus reports "down" (with the driver's message) rather than throwing: both end as down here. */
  private async pingDatabase(): Promise<void> {
    const result = (await this.db.pingCheck('database', { timeout: 3000 })) as Record<
      string,
      { status?: string; message?: unknown }
    >;
    if (result.database?.status !== 'up') throw new Error(String(result.database?.message ?? 'database down'));
  }

  private async pingRedis(): Promise<void> {
    if (this.redis!.status === 'wait' || this.redis!.status === 'end') {
      await this.redis!.connect().catch(() => undefined);
    }
    await this.redis!.ping();
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}
