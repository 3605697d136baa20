import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, SuccessMessageResponse } from '../../common/openapi/api-responses';
import {
  CleanupResponse,
  DeletedCountResponse,
  FixPendingResponse,
  RedemptionListResponse,
  RedemptionResponse,
  SuccessCountResponse,
} from './dto/redemption-responses.dto';
import type { Request } from 'express';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Permission } from '../../common/permissions';
import {
  AssignLicenseDto,
  BulkAssignLicenseDto,
  ListRedemptionsQuery,
  RedemptionIdsDto,
} from './dto/redemption-admin.dto';
import { redemptionIdPipe } from './redemption-admin.messages';
import { RedemptionAdminService } from './redemption-admin.service';
import { RedemptionListService } from './redemption-list.service';

const redemptionId = redemptionIdPipe;

@ApiTags('redemptions (admin)')
@Controller('redemptions')
export class RedemptionAdminController {
  constructor(
    private readonly redemptions: RedemptionAdminService,
    private readonly lists: RedemptionListService,
  ) {}

  @Get()
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({
    summary: 'Recent (showExported=false) or exported redemptions, paginated, filtered and searched',
    description: 'Licence keys are masked (docs/product.md §10.6) for a caller without licenses.view.',
  })
  @ApiOkResponse({ type: RedemptionListResponse })
  @ApiErrorResponses(400)
  list(@Query() query: ListRedemptionsQuery) {
    return this.lists.list(query);
  }

  @Post('bulk-assign-license')
  @HttpCode(200)
  @RequirePermissions(Permission.LicensesAssign)
  @ApiOperation({
    summary: 'One key and link for every selected redemption without a key and not held; answers {successCount}',
  })
  @ApiOkResponse({ type: SuccessCountResponse })
  @ApiErrorResponses(400)
  bulkAssign(@Body() dto: BulkAssignLicenseDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.bulkAssignLicense(dto, requestActor(req, user));
  }

  @Post('bulk-delete')
  @HttpCode(200)
  @RequirePermissions(Permission.RedemptionsDelete)
  @ApiOperation({ summary: 'Delete the selected redemptions; answers {deletedCount}' })
  @ApiOkResponse({ type: DeletedCountResponse })
  @ApiErrorResponses(400)
  bulkDelete(@Body() dto: RedemptionIdsDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.bulkRemove(dto.redemptionIds, requestActor(req, user));
  }

  @Get(':id')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({
    summary: 'One redemption in the list shape (details modal)',
    description: 'The licence key is masked (docs/product.md §10.6) for a caller without licenses.view.',
  })
  @ApiOkResponse({ type: RedemptionResponse })
  @ApiErrorResponses({ 404: 'Redemption not found' })
  findOne(@Param('id', redemptionId) id: string) {
    return this.lists.findOne(id);
  }

  @Post(':id/resend-email')
  @HttpCode(200)
  @RequirePermissions(Permission.EmailsResend)
  @ApiOperation({ summary: 'Queue the order e-mail again' })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({
    404: 'Redemption not found',
    409: 'No key yet (assign one first), or held for review (approve it in the Review tab)',
  })
  resend(@Param('id', redemptionId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.resendEmail(id, requestActor(req, user));
  }

  @Post(':id/assign-license')
  @HttpCode(200)
  @RequirePermissions(Permission.LicensesAssign)
  @ApiOperation({
    summary: 'Assign a key by hand (stored as MANUAL_<key>); the e-mail follows; answers the redemption',
  })
  @ApiOkResponse({ type: RedemptionResponse })
  @ApiErrorResponses({
    400: 'Validation failures, or a Mac / not licence-managed product',
    404: 'Redemption not found',
    409: 'This redemption is held for review: approve it in the Review tab to deliver its licence.',
  })
  assign(
    @Param('id', redemptionId) id: string,
    @Body() dto: AssignLicenseDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.redemptions.assignLicense(id, dto, requestActor(req, user));
  }

  @Delete(':id')
  @RequirePermissions(Permission.RedemptionsDelete)
  @ApiOperation({ summary: 'Delete a redemption; its voucher code stays redeemed' })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({ 404: 'Redemption not found' })
  remove(@Param('id', redemptionId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.remove(id, requestActor(req, user));
  }
}

/** The system-wide redemption actions under /api/admin (the rest of /api/admin belongs to authentication). */
@ApiTags('redemptions (admin)')
@Controller('admin')
export class RedemptionMaintenanceController {
  constructor(private readonly redemptions: RedemptionAdminService) {}

  @Post('fix-pending-emails')
  @HttpCode(200)
  @RequirePermissions(Permission.EmailsFixPending)
  @ApiOperation({
    summary: 'Give waiting redemptions free pool keys and queue pending e-mails; {fixedCount, assignedCount}',
  })
  @ApiOkResponse({ type: FixPendingResponse })
  fixPending(@Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.fixPendingEmails(requestActor(req, user));
  }

  @Delete('cleanup-redeemed')
  @RequirePermissions(Permission.SystemCleanup)
  @ApiOperation({ summary: 'Clean System: delete every voucher code, customer, redemption and licence assignment' })
  @ApiOkResponse({ type: CleanupResponse })
  cleanup(@Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.cleanup(requestActor(req, user));
  }
}
