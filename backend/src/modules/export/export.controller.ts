import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { canReadLicenseKeys, Permission } from '../../common/permissions';
import { ProductExportQuery, RedeemedVouchersExportQuery, SelectedRedemptionsExportDto } from './dto/export.dto';
import { ExportService } from './export.service';

@ApiTags('admin: exports')
@ApiProduces('text/csv', 'text/plain')
@Controller('export')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Post('selected-redemptions')
  @HttpCode(200)
  @RequirePermissions(Permission.ExportRedeemedVouchers)
  @ApiOperation({ summary: 'The selected redemptions as CSV/TXT; marks them exported' })
  selected(
    @Body() dto: SelectedRedemptionsExportDto,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.selectedRedemptions(
      dto.redemptionIds,
      dto.format,
      res,
      requestActor(req, user),
      canReadLicenseKeys(user?.permissions),
    );
  }

  @Get('redeemed-vouchers')
  @RequirePermissions(Permission.ExportRedeemedData)
  @ApiOperation({ summary: 'Redemptions with customer data as filtered on screen; marks them exported' })
  redeemed(
    @Query() query: RedeemedVouchersExportQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.redeemedVouchers(query, res, requestActor(req, user), canReadLicenseKeys(user?.permissions));
  }

  @Get('redeemed-voucher-codes')
  @RequirePermissions(Permission.ExportRedeemedVouchers)
  @ApiOperation({ summary: 'Redeemed voucher codes (no customer data)' })
  redeemedCodes(
    @Query() query: ProductExportQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.redeemedVoucherCodes(query, res, requestActor(req, user));
  }

  @Get('unredeemed-vouchers')
  @RequirePermissions(Permission.ExportUnredeemedVouchers)
  @ApiOperation({ summary: 'Unredeemed voucher codes of a product (or all); 404 when there are none' })
  unredeemed(
    @Query() query: ProductExportQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.unredeemedVouchers(query, res, requestActor(req, user));
  }
}
