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
  Put,
  Query,
  Req,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, SuccessMessageResponse } from '../../common/openapi/api-responses';
import type { Request } from 'express';
import { AuditInventoryRead } from '../audit/audit-inventory-read.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { requestActor } from '../../common/utils/request-actor';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Permission } from '../../common/permissions';
import { CreateLicenseKeyDto, ListLicenseKeysQuery, UpdateLicenseKeyDto } from './dto/license-key.dto';
import {
  LicenseKeyListResponse,
  LicenseKeyResponse,
  LicenseManagedProductResponse,
} from './dto/license-key-responses.dto';
import { LICENSE_KEY_MESSAGES, LicenseKeyService } from './license-key.service';

const keyId = new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(LICENSE_KEY_MESSAGES.notFound) });

@ApiTags('licence keys')
@Controller()
export class LicenseKeyController {
  constructor(private readonly keys: LicenseKeyService) {}

  @Get('license-managed-products')
  @RequirePermissions(Permission.DashboardView)
  @ApiOperation({ summary: 'Products whose redemptions take keys from the licence pool' })
  @ApiOkResponse({ type: [LicenseManagedProductResponse] })
  licenseManagedProducts() {
    return this.keys.licenseManagedProducts();
  }

  @Get('license-keys')
  @RequirePermissions(Permission.LicensesView)
  @ApiOperation({ summary: 'Pool keys with usage state and summary counts (MANUAL_ keys hidden); needs licenses.view' })
  @ApiOkResponse({ type: LicenseKeyListResponse })
  @ApiErrorResponses(400)
  @AuditInventoryRead('licenseKeys')
  list(@Query() query: ListLicenseKeysQuery) {
    return this.keys.list(query);
  }

  @Post('license-keys')
  @HttpCode(201)
  @RequirePermissions(Permission.LicensesManage)
  @ApiOperation({ summary: 'Add a key to a licence-managed product (duplicate per product: 409)' })
  @ApiCreatedResponse({ type: LicenseKeyResponse })
  @ApiErrorResponses(400, { 404: 'Product not found', 409: 'This license key already exists for this product' })
  create(@Body() dto: CreateLicenseKeyDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.keys.create(dto, requestActor(req, user));
  }

  @Put('license-keys/:id')
  @RequirePermissions(Permission.LicensesManage)
  @ApiOperation({ summary: 'Activate or deactivate a key; inactive keys are never assigned' })
  @ApiOkResponse({ type: LicenseKeyResponse })
  @ApiErrorResponses(400, { 404: 'License key not found' })
  update(
    @Param('id', keyId) id: string,
    @Body() dto: UpdateLicenseKeyDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.keys.setActive(id, dto.isActive, requestActor(req, user));
  }

  @Delete('license-keys/:id')
  @RequirePermissions(Permission.LicensesManage)
  @ApiOperation({ summary: 'Delete a key that was never assigned (409 otherwise)' })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({
    404: 'License key not found',
    409: 'This license key has been assigned to N redemption(s) and cannot be deleted. Deactivate it instead.',
  })
  remove(@Param('id', keyId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.keys.remove(id, requestActor(req, user));
  }
}
