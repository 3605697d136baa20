import { Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../../common/openapi/api-responses';
import { SuccessResponse, OwnSessionResponse, RevokedSessionsResponse } from './dto/auth-responses.dto';
import type { Request } from 'express';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { UuidParam } from '../../common/pipes/uuid-param.pipe';
import { requestMeta } from '../../common/utils/request-actor';
import { AuthService } from './auth.service';

/** The caller's own sign-ins (the console's Security screen): list them, end one, end all but this one. */
@ApiTags('admin auth')
@Controller('admin/sessions')
export class SessionsController {
  constructor(private readonly auth: AuthService) {}

  @RequirePermissions()
  @Get()
  @ApiOperation({
    summary:
      "The caller's live sessions: [{id, current, createdAt, lastUsedAt, ip, userAgent}], most recently used first",
    description: 'lastUsedAt is the sign-in or the last token renewal (access tokens live 15 minutes).',
  })
  @ApiOkResponse({ type: [OwnSessionResponse] })
  list(@CurrentUser() user: AuthUser) {
    return this.auth.listSessions(user);
  }

  @RequirePermissions()
  @Post('revoke-others')
  @HttpCode(200)
  @ApiOperation({ summary: 'End every session of the caller except this one: {revoked}' })
  @ApiOkResponse({ type: RevokedSessionsResponse })
  revokeOthers(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return this.auth.endOtherSessions(user, requestMeta(req));
  }

  @RequirePermissions()
  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'End one of the own sessions; its access and refresh tokens stop working at once' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrorResponses({
    400: 'Invalid session ID.',
    404: "Session not found: unknown, already ended, or another user's session",
  })
  revoke(@CurrentUser() user: AuthUser, @Param('id', UuidParam('session')) id: string, @Req() req: Request) {
    return this.auth.endSession(user, id, requestMeta(req));
  }
}
