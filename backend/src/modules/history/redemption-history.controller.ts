import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { ApiErrorResponses } from '../../common/openapi/api-responses';
import { Permission } from '../../common/permissions';
import { redemptionIdPipe } from '../redemption/redemption-admin.messages';
import { RedemptionHistoryResponse } from './dto/redemption-history.dto';
import { RedemptionHistoryService } from './redemption-history.service';

@ApiTags('redemptions (admin)')
@Controller('redemptions')
export class RedemptionHistoryController {
  constructor(private readonly history: RedemptionHistoryService) {}

  @Get(':id/history')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({
    summary:
      'What happened to one redemption, oldest first: redeemed, keys assigned, e-mails, resends, export, refund, deletion',
    description:
      'Licence keys are masked (docs/product.md §10.6) for a caller without licenses.view. A deleted redemption keeps what the audit trail and e-mail log tell.',
  })
  @ApiOkResponse({ type: RedemptionHistoryResponse })
  @ApiErrorResponses({ 404: 'Redemption not found' })
  get(@Param('id', redemptionIdPipe) id: string): Promise<RedemptionHistoryResponse> {
    return this.history.history(id);
  }
}
