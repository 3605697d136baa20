import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, ApiFileResponse } from '../../common/openapi/api-responses';
import type { Request, Response } from 'express';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Permission } from '../../common/permissions';
import { UuidParam } from '../../common/pipes/uuid-param.pipe';
import {
  FormatQuery,
  ProductExportQuery,
  RedeemedVouchersExportQuery,
  SelectedRedemptionsExportDto,
} from './dto/export.dto';
import { ExportService } from './export.service';
import { ExportOutput } from './export-writer.service';

@ApiTags('admin: exports')
@Controller('export')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Post('selected-redemptions')
  @HttpCode(200)
  @RequirePermissions(Permission.ExportRedeemedVouchers)
  @ApiOperation({ summary: 'The selected redemptions as CSV/TXT; marks them exported' })
  @ApiFileResponse('The file (Content-Disposition: attachment)')
  @ApiErrorResponses(400, {
    404: 'No redemptions found to export.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  selected(
    @Body() dto: SelectedRedemptionsExportDto,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.selectedRedemptions(
      dto.redemptionIds,
      dto.format,
      httpOutput(res),
      requestActor(req, user),
      user?.permissions ?? [],
    );
  }

  @Get('redeemed-vouchers')
  @RequirePermissions(Permission.ExportRedeemedData)
  @ApiOperation({ summary: 'Redemptions with customer data as filtered on screen; marks them exported' })
  @ApiFileResponse('The file (Content-Disposition: attachment)')
  @ApiErrorResponses(400, {
    404: 'No redeemed vouchers found to export.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  redeemed(
    @Query() query: RedeemedVouchersExportQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.redeemedVouchers(query, httpOutput(res), requestActor(req, user), user?.permissions ?? []);
  }

  @Get('redeemed-voucher-codes')
  @RequirePermissions(Permission.ExportRedeemedVouchers)
  @ApiOperation({ summary: 'Redeemed voucher codes (no customer data)' })
  @ApiFileResponse('The file (Content-Disposition: attachment)')
  @ApiErrorResponses(400, {
    404: 'No redeemed voucher codes found to export.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  redeemedCodes(
    @Query() query: ProductExportQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.redeemedVoucherCodes(query, httpOutput(res), requestActor(req, user));
  }

  @Get('unredeemed-vouchers')
  @RequirePermissions(Permission.ExportUnredeemedVouchers)
  @ApiOperation({ summary: 'Unredeemed voucher codes of a product (or all); 404 when there are none' })
  @ApiFileResponse('The file (Content-Disposition: attachment)')
  @ApiErrorResponses(400, {
    404: 'No unredeemed voucher codes found to export. / Product not found.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  unredeemed(
    @Query() query: ProductExportQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.unredeemedVouchers(query, httpOutput(res), requestActor(req, user));
  }

  /*
   * The file holds the batch's unredeemed codes as well as its redeemed ones: reading codes needs vouchers.view, and
   * taking them away in a file the two code exports' permissions (docs/product.md §7.4: export.unredeemed-vouchers is the
   * admin's alone).
   */
  @Get('batch/:id')
  @RequirePermissions(Permission.VouchersView, Permission.ExportUnredeemedVouchers, Permission.ExportRedeemedVouchers)
  @ApiOperation({
    summary: "A batch's reconciliation: code, status, redeemedAt, exportedAt, refundedAt (docs/product.md §20.1)",
    description:
      'Every code of the batch in insertion order with its status (Available, Redeemed, Refunded, Void) and the times of its ' +
      'redemption, export and refund; for a void file, the codes it voided or refunded. Streamed; marks nothing.',
  })
  @ApiFileResponse('The file (Content-Disposition: attachment; batch-<date>.csv)')
  @ApiErrorResponses(400, {
    404: 'Batch not found. / No voucher codes in this batch.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  batch(
    @Param('id', UuidParam('batch')) id: string,
    @Query() query: FormatQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.exports.batch(id, query.format, httpOutput(res), requestActor(req, user));
  }
}

/** The response as an export's output: the file's status and headers once its first row is known, then its body. */
function httpOutput(res: Response): ExportOutput {
  return {
    open: ({ contentType, fileName }) => {
      res.status(200);
      res.setHeader('Content-Type', contentType);
      res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
      res.setHeader('X-Content-Type-Options', 'nosniff');
    },
    body: res,
    sent: () => res.headersSent,
  };
}
