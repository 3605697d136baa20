import { BadRequestException, Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrorResponses, MessageResponse } from '../../common/openapi/api-responses';
import { RedeemResponse, SuccessTokenResponse } from './dto/redemption-responses.dto';
import { Public } from '../../common/decorators/public.decorator';
import { requestMeta } from '../../common/utils/request-actor';
import { RedeemVoucherDto } from './dto/redeem-voucher.dto';
import { ResendOrderEmailDto } from './dto/resend-order-email.dto';
import { OrderEmailResendService, RESEND_ANSWER } from './order-email-resend.service';
import { RedeemRateLimitGuard } from './redeem-rate-limit.guard';
import { IDEMPOTENCY_KEY_PATTERN, REDEEM_MESSAGES } from './redemption.errors';
import { RedemptionService } from './redemption.service';

@ApiTags('public')
@Controller()
export class RedemptionController {
  constructor(
    private readonly redemptions: RedemptionService,
    private readonly resends: OrderEmailResendService,
  ) {}

  @Public()
  @Post('redeem-voucher')
  @HttpCode(201)
  @UseGuards(RedeemRateLimitGuard)
  @ApiOperation({ summary: 'Redeem a voucher code; answers the product name and a success-page token' })
  @ApiCreatedResponse({ type: RedeemResponse })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'A random value (at least 128 bits, 16–128 characters of A–Z a–z 0–9 _ -) the redeem page makes per form. Stored hashed with the redemption; only a repeat carrying it gets a token again.',
  })
  @ApiOkResponse({
    type: RedeemResponse,
    description:
      'The same code with the same e-mail and the same Idempotency-Key was redeemed within the token lifetime: the same redemption with a fresh token, nothing else written. Without that key: 409.',
  })
  @ApiErrorResponses({
    400: 'Validation failures (`errors`), or: This product is currently not available for redemption. Or: Invalid Idempotency-Key header',
    404: 'Invalid voucher code. Please check the code and try again.',
    409: 'This voucher code has already been redeemed. / A licence for this product has already been issued to this e-mail address.',
    410: REDEEM_MESSAGES.voidCode,
    429: 'Too many redemption attempts (REDEEM_RATE_LIMIT), or the address is blocked for guessing codes',
    451: 'GEO_BLOCKED: the client address is in a blocked country (`code: "GEO_BLOCKED"`)',
  })
  async redeem(@Body() dto: RedeemVoucherDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const meta = requestMeta(req);
    const result = await this.redemptions.redeem(dto, {
      ip: meta.ipAddress,
      userAgent: meta.userAgent,
      idempotencyKey: idempotencyKeyOf(req),
    });
    if (result.repeated) res.status(200);
    return { success: true, productName: result.productName, successToken: result.successToken };
  }

  @Public()
  @Post('resend-order-email')
  @HttpCode(202)
  @UseGuards(RedeemRateLimitGuard)
  @ApiOperation({
    summary:
      "Didn't get the e-mail? Sends the order e-mail again when code and e-mail match a redemption with a licence",
    description:
      'Always the same answer, so it reveals nothing. At most 3 e-mails per redemption per 24 hours; an unknown code counts towards the code-guessing block.',
  })
  @ApiAcceptedResponse({ type: MessageResponse, description: `Always \`{message: "${RESEND_ANSWER.message}"}\`` })
  @ApiErrorResponses({
    400: 'Validation failures (`errors`)',
    429: 'Too many attempts from this address, or the address is blocked for guessing codes',
  })
  resendOrderEmail(@Body() dto: ResendOrderEmailDto, @Req() req: Request) {
    const meta = requestMeta(req);
    return this.resends.resend(dto, meta.ipAddress, meta.userAgent);
  }

  @Public()
  @Get('success-token/:token')
  @ApiOperation({ summary: 'What the success page shows for a token' })
  @ApiOkResponse({ type: SuccessTokenResponse })
  @ApiErrorResponses({
    404: 'Invalid or expired access token',
    410: 'Refunded since ("This order has been refunded. Please contact support."), or refused in review',
    429: 'Too many invalid voucher codes. Please contact support.',
  })
  successToken(@Param('token') token: string) {
    return this.redemptions.successToken(token);
  }
}

/** The redeem page's `Idempotency-Key` header, or null without one; one that is not such a key is a 400. */
function idempotencyKeyOf(req: Request): string | null {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw new BadRequestException(REDEEM_MESSAGES.invalidIdempotencyKey);
  }
  return value;
}
