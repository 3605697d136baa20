import { Controller, Get, Headers, Inject, NotFoundException, Res, UnauthorizedException } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'crypto';
import type { Response } from 'express';
import { Public } from '../../common/decorators/public.decorator';
import { ApiErrorResponses } from '../../common/openapi/api-responses';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { MetricsService } from './metrics.service';

export const METRICS_MESSAGES = {
  off: 'Cannot GET /metrics',
  token: 'A valid metrics token is required.',
} as const;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `GET /metrics` (outside /api, where Prometheus looks). Not an admin route: the admin sessions' guard is off
 * (`@Public`) and the scraper shows METRICS_TOKEN as a bearer token instead. No token configured: 404, as if the
 * route did not exist.
 */
@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @Public()
  // Its bearer token is METRICS_TOKEN, not an admin session's: OpenAPI lists it as public (`@Public`) and says so.
  @ApiOperation({
    summary: 'Prometheus metrics: header "Authorization: Bearer <METRICS_TOKEN>"; 404 when METRICS_TOKEN is unset',
  })
  @ApiResponse({
    status: 200,
    description: 'Prometheus text exposition format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrorResponses({ 401: METRICS_MESSAGES.token, 404: 'METRICS_TOKEN is not set' })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    const token = this.config.metricsToken;
    if (!token) throw new NotFoundException(METRICS_MESSAGES.off);
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
    // Compared as digests: equal lengths, constant time.
    if (!timingSafeEqual(digest(given), digest(token))) throw new UnauthorizedException(METRICS_MESSAGES.token);
    const { contentType, body } = await this.metrics.scrape();
    res.type(contentType).send(body);
  }
}
