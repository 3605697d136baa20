import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrorResponses, MessageResponse } from '../../common/openapi/api-responses';
import {
  DeleteVoucherCodesResponse,
  UploadBatchResponse,
  UploadRefusedResponse,
  UploadResponse,
  VoidRefusedResponse,
  VoidResponse,
  VoucherCodePageResponse,
} from './dto/voucher-responses.dto';
import type { Request } from 'express';
import { AuditInventoryRead } from '../audit/audit-inventory-read.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { UuidParam } from '../../common/pipes/uuid-param.pipe';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Permission } from '../../common/permissions';
import { DeleteVoucherCodesDto, MAX_VOID_CODES, VoidVoucherCodesDto, VoucherCodeListQuery } from './dto/voucher.dto';
import { UploadBatchService } from './upload-batch.service';
import { IncomingBody } from './code-file';
import { VoucherUploadService } from './voucher-upload.service';
import { VoucherVoidService } from './voucher-void.service';
import { VoucherService } from './voucher.service';

@ApiTags('admin: voucher codes')
@Controller()
export class VoucherController {
  constructor(
    private readonly vouchers: VoucherService,
    private readonly uploads: VoucherUploadService,
    private readonly voids: VoucherVoidService,
    private readonly batches: UploadBatchService,
  ) {}

  @Post('products/:id/voucher-codes')
  @HttpCode(201)
  @RequirePermissions(Permission.VouchersUpload)
  @ApiOperation({ summary: 'Upload a CSV or TXT file of codes (streamed, max 50 MB)' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: UploadResponse })
  @ApiResponse({
    status: 400,
    description: 'No file, not .csv/.txt, empty, unreadable, or no valid voucher codes (nothing is written)',
    type: UploadRefusedResponse,
  })
  @ApiErrorResponses({
    404: 'Product not found.',
    413: 'The file is too large. The maximum upload size is 50 MB.',
    503: 'Too many uploads and exports at once: try again shortly',
    507: 'The database ran out of storage space while adding the codes. Nothing was added (docs/product.md §20.6)',
  })
  upload(@Param('id', UuidParam('product')) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.uploads.upload(id, incomingBody(req), requestActor(req, user));
  }

  @Post('products/:id/voucher-codes/void')
  @HttpCode(200)
  @RequirePermissions(Permission.VouchersVoid)
  @ApiOperation({
    summary: 'Void refunded codes: {codes} as JSON or a CSV/TXT file (multipart "file", max 50 MB)',
    description:
      'Available codes become void (redeem → 410); redeemed codes keep their key and their redemption gets refundedAt. ' +
      `Answers {message, voided, refundedAfterRedemption: [{code, redemptionId, redeemedAt, refundedAt}], unknown, alreadyVoid, invalid, invalidSamples}. At most ${MAX_VOID_CODES} codes as JSON.`,
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({
    schema: {
      oneOf: [
        { type: 'object', properties: { codes: { type: 'array', items: { type: 'string' } } }, required: ['codes'] },
        { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] },
      ],
    },
  })
  @ApiOkResponse({ type: VoidResponse })
  @ApiResponse({
    status: 400,
    description: 'No codes, not .csv/.txt, unreadable, or more than the limit (nothing is written)',
    type: VoidRefusedResponse,
  })
  @ApiErrorResponses({
    404: 'Product not found.',
    413: 'The file is too large. The maximum upload size is 50 MB.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  voidCodes(
    @Param('id', UuidParam('product')) id: string,
    @Body() dto: VoidVoucherCodesDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.voids.voidCodes(id, incomingBody(req), dto.codes, requestActor(req, user));
  }

  @Get('products/:id/voucher-codes-detailed')
  @RequirePermissions(Permission.VouchersView)
  @ApiOperation({ summary: "A page of a product's voucher codes with redemption and customer" })
  @ApiOkResponse({ type: VoucherCodePageResponse })
  @ApiErrorResponses(400, { 404: 'Product not found.' })
  @AuditInventoryRead('codes')
  list(@Param('id', UuidParam('product')) id: string, @Query() query: VoucherCodeListQuery) {
    return this.vouchers.list(id, query);
  }

  @Get('products/:id/batches')
  @RequirePermissions(Permission.VouchersView)
  @ApiOperation({
    summary: "A product's upload batches, newest first, with live counts (docs/product.md §20.1)",
    description:
      'Every upload and every void file is a batch; codes that came by no upload form the product\'s "before-batches" batch ' +
      '(listed while it holds codes). Counts come from counters, never from counting codes.',
  })
  @ApiOkResponse({ type: [UploadBatchResponse] })
  @ApiErrorResponses(400, { 404: 'Product not found.' })
  listBatches(@Param('id', UuidParam('product')) id: string) {
    return this.batches.list(id);
  }

  @Delete('products/:id/voucher-codes')
  @RequirePermissions(Permission.VouchersDelete)
  @ApiOperation({ summary: 'Delete selected or all unredeemed codes of a product (redeemed codes are kept)' })
  @ApiOkResponse({ type: DeleteVoucherCodesResponse })
  @ApiErrorResponses(400)
  deleteMany(
    @Param('id', UuidParam('product')) id: string,
    @Body() dto: DeleteVoucherCodesDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.vouchers.deleteMany(id, dto, requestActor(req, user));
  }

  @Delete('voucher-codes/:id')
  @RequirePermissions(Permission.VouchersDelete)
  @ApiOperation({ summary: 'Delete one unredeemed voucher code' })
  @ApiOkResponse({ type: MessageResponse })
  @ApiErrorResponses(400, { 404: 'Voucher code not found.', 409: 'Redeemed voucher codes cannot be deleted.' })
  deleteOne(@Param('id', UuidParam('voucher code')) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.vouchers.deleteOne(id, requestActor(req, user));
  }
}

/** The request's body as the upload and the void read it: the stream, its content type, whether all of it arrived. */
function incomingBody(req: Request): IncomingBody {
  return { stream: req, contentType: req.headers['content-type'], complete: () => req.complete };
}
