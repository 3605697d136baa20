import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthUser, CurrentUser } from '../../../common/decorators/current-user.decorator';
import { RequirePermissions } from '../../../common/decorators/require-permissions.decorator';
import { ApiErrorResponses } from '../../../common/openapi/api-responses';
import { Permission } from '../../../common/permissions';
import { UuidParam } from '../../../common/pipes/uuid-param.pipe';
import { requestMeta } from '../../../common/utils/request-actor';
import { SuccessResponse } from '../dto/auth-responses.dto';
import { ApiTokenResponse, CreateApiTokenDto, CreatedApiTokenResponse } from './api-token.dto';
import { ApiTokenService } from './api-token.service';

/** Settings → API tokens (admin): integrations call the API with `Authorization: Bearer ovr_…`. */
@ApiTags('api tokens')
@Controller('admin/api-tokens')
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokenService) {}

  @RequirePermissions(Permission.ApiTokensManage)
  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an API token: {id, name, token, permissions, expiresAt}; the token is shown this once',
    description:
      'permissions: a subset of the data permissions (never settings, cleanup, accounts, webhooks or tokens). expiresInDays 1-3650, default 90.',
  })
  @ApiCreatedResponse({ type: CreatedApiTokenResponse })
  @ApiErrorResponses(400)
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateApiTokenDto, @Req() req: Request) {
    return this.tokens.create(user, dto, requestMeta(req));
  }

  @RequirePermissions(Permission.ApiTokensManage)
  @Get()
  @ApiOperation({ summary: 'The tokens not revoked, newest first (never the token itself)' })
  @ApiOkResponse({ type: [ApiTokenResponse] })
  @ApiErrorResponses()
  list() {
    return this.tokens.list();
  }

  @RequirePermissions(Permission.ApiTokensManage)
  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a token: its next call is refused (401)' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrorResponses(400, { 404: 'API token not found' })
  revoke(@CurrentUser() user: AuthUser, @Param('id', UuidParam('API token')) id: string, @Req() req: Request) {
    return this.tokens.revoke(user, id, requestMeta(req));
  }
}
