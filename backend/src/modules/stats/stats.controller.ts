import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../../common/openapi/api-responses';
import { StatsResponse } from './dto/stats-response.dto';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { Permission } from '../../common/permissions';
import { STATS_PERIODS } from './stats.periods';
import { StatsService } from './stats.service';

@ApiTags('admin: statistics')
@Controller('stats')
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @Get()
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({ summary: 'All-time statistics' })
  @ApiOkResponse({ type: StatsResponse })
  allTime() {
    return this.stats.stats('alltime');
  }

  @Get(':period')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({ summary: 'Statistics of one period, in the server time zone (TZ)' })
  @ApiParam({ name: 'period', enum: STATS_PERIODS, enumName: 'StatsPeriod' })
  @ApiOkResponse({ type: StatsResponse })
  @ApiErrorResponses({ 400: 'Unknown period "…". Use one of: …' })
  forPeriod(@Param('period') period: string) {
    return this.stats.stats(period);
  }
}
