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
  Req,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { ApiErrorResponses, SuccessMessageResponse } from '../../common/openapi/api-responses';
import { Permission } from '../../common/permissions';
import { requestActor } from '../../common/utils/request-actor';
import {
  CreatedWebhookResponse,
  CreateWebhookDto,
  WebhookDeliveryListResponse,
  WebhookEndpointResponse,
  WebhookResumeResponse,
  WebhookTestResponse,
} from './dto/webhook.dto';
import { WEBHOOK_MESSAGES, WebhookEndpointService } from './webhook-endpoint.service';

const webhookId = new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(WEBHOOK_MESSAGES.notFound) });

@ApiTags('webhooks')
@Controller('webhooks')
@RequirePermissions(Permission.WebhooksManage)
export class WebhookController {
  constructor(private readonly webhooks: WebhookEndpointService) {}

  @Get()
  @ApiOperation({ summary: 'Registered webhook endpoints (secrets are never shown again)' })
  @ApiOkResponse({ type: [WebhookEndpointResponse] })
  @ApiErrorResponses()
  list() {
    return this.webhooks.list();
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Register an endpoint: https URL resolving to a public address, events; answers the secret once',
  })
  @ApiCreatedResponse({ type: CreatedWebhookResponse })
  @ApiErrorResponses(400)
  create(@Body() dto: CreateWebhookDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.webhooks.create(dto, requestActor(req, user));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete an endpoint and its delivery log' })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({ 404: WEBHOOK_MESSAGES.notFound })
  remove(@Param('id', webhookId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.webhooks.remove(id, requestActor(req, user));
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The last 20 deliveries of an endpoint, newest first' })
  @ApiOkResponse({ type: WebhookDeliveryListResponse })
  @ApiErrorResponses({ 404: WEBHOOK_MESSAGES.notFound })
  deliveries(@Param('id', webhookId) id: string) {
    return this.webhooks.deliveries(id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume an endpoint the circuit breaker paused: its queued deliveries are sent now' })
  @ApiOkResponse({ type: WebhookResumeResponse })
  @ApiErrorResponses({ 404: WEBHOOK_MESSAGES.notFound, 409: WEBHOOK_MESSAGES.notPaused })
  resume(@Param('id', webhookId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.webhooks.resume(id, requestActor(req, user));
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Queue a signed webhook.test delivery to this endpoint' })
  @ApiAcceptedResponse({ type: WebhookTestResponse })
  @ApiErrorResponses({ 404: WEBHOOK_MESSAGES.notFound })
  sendTest(@Param('id', webhookId) id: string) {
    return this.webhooks.sendTest(id);
  }
}
