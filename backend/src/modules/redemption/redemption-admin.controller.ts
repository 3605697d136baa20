import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { canReadLicenseKeys, Permission } from '../../common/permissions';
import {
  AssignLicenseDto,
  BulkAssignLicenseDto,
  ListRedemptionsQuery,
  RedemptionIdsDto,
} from './dto/redemption-admin.dto';
import { REDEMPTION_ADMIN_MESSAGES } from './redemption-admin.messages';
import { RedemptionAdminService } from './redemption-admin.service';
import { RedemptionListService } from './redemption-list.service';

const redemptionId = new ParseUUIDPipe({
  exceptionFactory: () => new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound),
});

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
    description: 'Licence keys are masked (SPEC §9) for a caller without licenses.view.',
  })
  list(@Query() query: ListRedemptionsQuery, @CurrentUser() user?: AuthUser) {
    return this.lists.list(query, canReadLicenseKeys(user?.permissions));
  }

  @Post('bulk-assign-license')
  @HttpCode(200)
  @RequirePermissions(Permission.LicensesAssign)
  @ApiOperation({ summary: 'One key and link for every selected redemption without a key; answers {successCount}' })
  bulkAssign(@Body() dto: BulkAssignLicenseDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.bulkAssignLicense(dto, requestActor(req, user));
  }

  @Post('bulk-delete')
  @HttpCode(200)
  @RequirePermissions(Permission.RedemptionsDelete)
  @ApiOperation({ summary: 'Delete the selected redemptions; answers {deletedCount}' })
  bulkDelete(@Body() dto: RedemptionIdsDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.bulkRemove(dto.redemptionIds, requestActor(req, user));
  }

  @Get(':id')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({
    summary: 'One redemption in the list shape (details modal)',
    description: 'The licence key is masked (SPEC §9) for a caller without licenses.view.',
  })
  findOne(@Param('id', redemptionId) id: string, @CurrentUser() user?: AuthUser) {
    return this.lists.findOne(id, canReadLicenseKeys(user?.permissions));
  }

  @Post(':id/resend-email')
  @HttpCode(200)
  @RequirePermissions(Permission.EmailsResend)
  @ApiOperation({ summary: 'Queue the order e-mail again' })
  resend(@Param('id', redemptionId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.resendEmail(id, requestActor(req, user));
  }

  @Post(':id/assign-license')
  @HttpCode(200)
  @RequirePermissions(Permission.LicensesAssign)
  @ApiOperation({
    summary: 'Assign a key by hand (stored as MANUAL_<key>); the e-mail follows; answers the redemption',
  })
  assign(
    @Param('id', redemptionId) id: string,
    @Body() dto: AssignLicenseDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.redemptions.assignLicense(id, dto, requestActor(req, user), canReadLicenseKeys(user?.permissions));
  }

  @Delete(':id')
  @RequirePermissions(Permission.RedemptionsDelete)
  @ApiOperation({ summary: 'Delete a redemption; its voucher code stays redeemed' })
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
  fixPending(@Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.fixPendingEmails(requestActor(req, user));
  }

  @Delete('cleanup-redeemed')
  @RequirePermissions(Permission.SystemCleanup)
  @ApiOperation({ summary: 'Clean System: delete every voucher code, customer, redemption and licence assignment' })
  cleanup(@Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.redemptions.cleanup(requestActor(req, user));
  }
}
