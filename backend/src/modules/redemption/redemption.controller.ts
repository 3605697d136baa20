import { Body, Controller, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/decorators/public.decorator';
import { requestMeta } from '../../common/utils/request-actor';
import { RedeemVoucherDto } from './dto/redeem-voucher.dto';
import { RedeemRateLimitGuard } from './redeem-rate-limit.guard';
import { RedemptionService } from './redemption.service';

@ApiTags('public')
@Controller()
export class RedemptionController {
  constructor(private readonly redemptions: RedemptionService) {}

  @Public()
  @Post('redeem-voucher')
  @HttpCode(201)
  @UseGuards(RedeemRateLimitGuard)
  @ApiOperation({ summary: 'Redeem a voucher code; answers the product name and a success-page token' })
  async redeem(@Body() dto: RedeemVoucherDto, @Req() req: Request) {
    const meta = requestMeta(req);
    const result = await this.redemptions.redeem(dto, meta.ipAddress, meta.userAgent);
    return { success: true, productName: result.productName, successToken: result.successToken };
  }

  @Public()
  @Get('success-token/:token')
  @ApiOperation({ summary: 'What the success page shows for a token' })
  successToken(@Param('token') token: string) {
    return this.redemptions.successToken(token);
  }
}
