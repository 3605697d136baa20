import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { UuidParam } from '../../common/pipes/uuid-param.pipe';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Permission } from '../../common/permissions';
import { DeleteVoucherCodesDto, VoucherCodeListQuery } from './dto/voucher.dto';
import { VoucherUploadService } from './voucher-upload.service';
import { VoucherService } from './voucher.service';

@ApiTags('admin: voucher codes')
@Controller()
export class VoucherController {
  constructor(
    private readonly vouchers: VoucherService,
    private readonly uploads: VoucherUploadService,
  ) {}

  @Post('products/:id/voucher-codes')
  @HttpCode(201)
  @RequirePermissions(Permission.VouchersUpload)
  @ApiOperation({ summary: 'Upload a CSV or TXT file of codes (streamed, max 50 MB)' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } })
  upload(@Param('id', UuidParam('product')) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.uploads.upload(id, req, requestActor(req, user));
  }

  @Get('products/:id/voucher-codes-detailed')
  @RequirePermissions(Permission.VouchersView)
  @ApiOperation({ summary: "A page of a product's voucher codes with redemption and customer" })
  list(@Param('id', UuidParam('product')) id: string, @Query() query: VoucherCodeListQuery) {
    return this.vouchers.list(id, query);
  }

  @Delete('products/:id/voucher-codes')
  @RequirePermissions(Permission.VouchersDelete)
  @ApiOperation({ summary: 'Delete selected or all unredeemed codes of a product (redeemed codes are kept)' })
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
  deleteOne(@Param('id', UuidParam('voucher code')) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.vouchers.deleteOne(id, requestActor(req, user));
  }
}
