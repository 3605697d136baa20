import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { Public } from '../../common/decorators/public.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { ApiErrorResponses, ApiFileResponse, SuccessMessageResponse } from '../../common/openapi/api-responses';
import { Permission } from '../../common/permissions';
import { requestActor } from '../../common/utils/request-actor';
import {
  CreatedMarketplaceResponse,
  CreateMarketplaceDto,
  MarketplaceEventDto,
  MarketplaceEventResponse,
  MarketplaceResponse,
  MarketplaceStatusResponse,
  ReconciliationQuery,
  RetryDeadResponse,
  UpdateMarketplaceDto,
} from './dto/marketplace.dto';
import { MARKETPLACE_MESSAGES, MarketplaceConnectionService } from './marketplace-connection.service';
import { INBOUND_MESSAGES, MarketplaceInboundService } from './marketplace-inbound.service';
import { MarketplaceReconciliation } from './marketplace-reconciliation';
import { RawBodyRequest } from './raw-body';

const connectionId = new ParseUUIDPipe({
  exceptionFactory: () => new NotFoundException(MARKETPLACE_MESSAGES.notFound),
});

@ApiTags('marketplaces')
@Controller('marketplaces')
@RequirePermissions(Permission.MarketplacesManage)
export class MarketplaceController {
  constructor(
    private readonly connections: MarketplaceConnectionService,
    private readonly reconciliation: MarketplaceReconciliation,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Marketplace connections with their products (secrets are never shown again)' })
  @ApiOkResponse({ type: [MarketplaceResponse] })
  @ApiErrorResponses()
  list() {
    return this.connections.list();
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Connect a marketplace: base URL through the SSRF guard; answers the signing secret once' })
  @ApiCreatedResponse({ type: CreatedMarketplaceResponse })
  @ApiErrorResponses(400, { 409: MARKETPLACE_MESSAGES.productTaken })
  create(@Body() dto: CreateMarketplaceDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.connections.create(dto, requestActor(req, user));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change a connection; `products`, when given, replaces its products' })
  @ApiOkResponse({ type: MarketplaceResponse })
  @ApiErrorResponses(400, { 404: MARKETPLACE_MESSAGES.notFound, 409: MARKETPLACE_MESSAGES.productTaken })
  update(
    @Param('id', connectionId) id: string,
    @Body() dto: UpdateMarketplaceDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.connections.update(id, dto, requestActor(req, user));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a connection with its products, event ids and reports (codes stay)' })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({ 404: MARKETPLACE_MESSAGES.notFound })
  remove(@Param('id', connectionId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.connections.remove(id, requestActor(req, user));
  }

  @Get(':id/status')
  @ApiOperation({ summary: 'Reconciliation: codes received, redeemed, reports acked/pending/dead, refunds, lag' })
  @ApiOkResponse({ type: MarketplaceStatusResponse })
  @ApiErrorResponses({ 404: MARKETPLACE_MESSAGES.notFound })
  status(@Param('id', connectionId) id: string) {
    return this.connections.status(id);
  }

  @Get(':id/reconciliation')
  @ApiOperation({ summary: "The day's redemptions of a connection with their report status, as CSV (streamed)" })
  @ApiFileResponse('The file (Content-Disposition: attachment)')
  @ApiErrorResponses(400, {
    404: 'Marketplace connection not found. / No redemptions of this connection were reported on <day>.',
    503: 'Too many uploads and exports at once: try again shortly',
  })
  reconcile(
    @Param('id', connectionId) id: string,
    @Query() query: ReconciliationQuery,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthUser,
  ) {
    const out = {
      open: (fileName: string) => {
        res.status(200);
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
        res.setHeader('X-Content-Type-Options', 'nosniff');
      },
      body: res,
      sent: () => res.headersSent,
    };
    return this.reconciliation.write(id, query.date, out, requestActor(req, user));
  }

  @Post(':id/retry-dead')
  @HttpCode(200)
  @ApiOperation({ summary: 'Queue the dead reports of a connection again, with a fresh retry window' })
  @ApiOkResponse({ type: RetryDeadResponse })
  @ApiErrorResponses({ 404: MARKETPLACE_MESSAGES.notFound })
  retryDead(@Param('id', connectionId) id: string, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.connections.retryDead(id, requestActor(req, user));
  }
}

/** A marketplace's inbound events: no staff token, the signature under the connection's secret is the credential. */
@ApiTags('marketplaces')
@Controller('marketplaces')
export class MarketplaceEventsController {
  constructor(private readonly inbound: MarketplaceInboundService) {}

  @Post(':id/events')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'A marketplace\'s signed event (X-Timestamp, X-Signature: sha256=HMAC of "<timestamp>.<raw body>")',
    description: 'No staff token: the signature under the connection secret is the credential (docs/marketplaces.md).',
  })
  @ApiBody({ type: MarketplaceEventDto })
  @ApiOkResponse({ type: MarketplaceEventResponse })
  @ApiErrorResponses(400, { 401: INBOUND_MESSAGES.invalidSignature, 422: INBOUND_MESSAGES.unknownRef })
  events(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    const valid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
    const raw = valid ? (req as unknown as RawBodyRequest).rawBody : undefined;
    return this.inbound.receive(id, req.headers, raw, body, requestActor(req, undefined));
  }
}
