import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { Permission } from '../../common/permissions';
import { PoolForecastResponse } from './dto/pool-forecast.dto';
import { PoolForecastService } from './pool-forecast.service';

@ApiTags('admin: licence pool')
@Controller('license-pool')
export class PoolController {
  constructor(private readonly forecasts: PoolForecastService) {}

  @Get('forecast')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({
    summary:
      'Per licence-managed product: available activations, the last 7 days’ redemptions and the days of keys left',
  })
  @ApiOkResponse({ type: [PoolForecastResponse] })
  forecast(): Promise<PoolForecastResponse[]> {
    return this.forecasts.forecast();
  }
}
