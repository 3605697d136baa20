import {
  Body,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Clock } from '../../common/clock';
import { AuthCustomer, CurrentCustomer, CustomerRoute } from '../../common/decorators/customer-route.decorator';
import { Public } from '../../common/decorators/public.decorator';
import { ApiErrorResponses, MessageResponse } from '../../common/openapi/api-responses';
import { requestMeta } from '../../common/utils/request-actor';
import { RedeemRateLimitGuard } from '../redemption/redeem-rate-limit.guard';
import { RESEND_ANSWER } from '../redemption/order-email-resend.service';
import { ACCESS_ANSWER, AccessLinkService, LINK_EXPIRED } from './access-link.service';
import { CustomerCentreService, REDEMPTION_NOT_FOUND } from './customer-centre.service';
import { CustomerAccessDto, CustomerErasureDto, CustomerSessionDto } from './dto/customer-centre.dto';
import { CustomerLicenceResponse, CustomerSessionResponse } from './dto/customer-centre-responses.dto';
import { ERASURE_ANSWER, ErasureService } from './erasure.service';

/** The licence centre (docs/product.md §21; docs/api.md): sign-in by e-mail link, then the customer's own routes. */
@ApiTags('licence centre')
@Controller('customer')
export class CustomerCentreController {
  constructor(
    private readonly access: AccessLinkService,
    private readonly centre: CustomerCentreService,
    private readonly erasure: ErasureService,
    private readonly clock: Clock,
  ) {}

  @Public()
  @Post('access')
  @HttpCode(202)
  @UseGuards(RedeemRateLimitGuard)
  @ApiOperation({
    summary: 'Asks for a sign-in link to the licence centre',
    description:
      'Always the same answer, and the same work, whatever the address. Only an address with redemptions gets an e-mail (a link valid 30 minutes, once), at most 3 an hour. Every request counts against the client address in a budget of its own (429 beyond it).',
  })
  @ApiAcceptedResponse({ type: MessageResponse, description: `Always \`{message: "${ACCESS_ANSWER.message}"}\`` })
  @ApiErrorResponses({
    400: 'Validation failures (`errors`)',
    429: 'Too many sign-in link requests from this address, or the address is blocked for guessing codes',
  })
  requestAccess(@Body() dto: CustomerAccessDto, @Req() req: Request) {
    return this.access.request(dto.email, requestMeta(req).ipAddress);
  }

  @Public()
  @Post('session')
  @HttpCode(200)
  @ApiOperation({ summary: 'Opens a 24-hour licence-centre session with a sign-in link (spends the link)' })
  @ApiOkResponse({ type: CustomerSessionResponse })
  @ApiErrorResponses({ 400: 'Validation failures (`errors`)', 401: LINK_EXPIRED })
  openSession(@Body() dto: CustomerSessionDto) {
    return this.access.openSession(dto.token);
  }

  @CustomerRoute()
  @Get('licences')
  @ApiOperation({ summary: "The customer's licences, newest first" })
  @ApiOkResponse({ type: [CustomerLicenceResponse] })
  licences(@CurrentCustomer() customer: AuthCustomer) {
    return this.centre.licences(customer);
  }

  @CustomerRoute()
  @Post('licences/:redemptionId/resend')
  @HttpCode(202)
  @ApiOperation({ summary: 'Sends the order e-mail of one of the customer’s licences again (at most 3 per 24 hours)' })
  @ApiAcceptedResponse({ type: MessageResponse, description: `\`{message: "${RESEND_ANSWER.message}"}\`` })
  @ApiErrorResponses({ 404: `${REDEMPTION_NOT_FOUND} (also another address's redemption, or not an id)` })
  resend(
    @CurrentCustomer() customer: AuthCustomer,
    @Param('redemptionId', new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(REDEMPTION_NOT_FOUND) }))
    redemptionId: string,
    @Req() req: Request,
  ) {
    const meta = requestMeta(req);
    return this.centre.resend(customer, redemptionId, meta.ipAddress, meta.userAgent);
  }

  @CustomerRoute()
  @Get('data')
  @ApiOperation({ summary: 'Everything stored about the customer, as a JSON attachment' })
  @ApiProduces('application/json')
  @ApiOkResponse({
    description: 'customer, redemptions as given (each with its history), e-mails sent',
    schema: { type: 'object' },
  })
  async data(
    @CurrentCustomer() customer: AuthCustomer,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const meta = requestMeta(req);
    const data = await this.centre.data(customer, meta.ipAddress, meta.userAgent);
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="my-data-${this.clock.now().toISOString().slice(0, 10)}.json"`,
    );
    return data;
  }

  @CustomerRoute()
  @Post('erasure')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Deletes the customer’s personal data (confirmation e-mail first); the licences stay valid',
  })
  @ApiAcceptedResponse({ type: MessageResponse, description: `\`{message: "${ERASURE_ANSWER.message}"}\`` })
  @ApiErrorResponses({ 400: 'Validation failures (`confirm` must be true)' })
  erase(@CurrentCustomer() customer: AuthCustomer, @Body() _dto: CustomerErasureDto) {
    return this.erasure.erase(customer);
  }
}
