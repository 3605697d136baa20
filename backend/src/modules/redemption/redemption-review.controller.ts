import {
  Body,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { ApiErrorResponses, SuccessMessageResponse } from '../../common/openapi/api-responses';
import { Permission } from '../../common/permissions';
import { requestActor } from '../../common/utils/request-actor';
import { RefuseReviewDto, ReviewEvidenceResponse, ReviewListResponse, ReviewQueryDto } from './dto/review.dto';
import { REVIEW_MESSAGES, RedemptionReviewService } from './redemption-review.service';

/** The review queue of held redemptions (docs/product.md §25.3): admin and operator. */
@ApiTags('reviews')
@Controller('reviews')
@RequirePermissions(Permission.ReviewsManage)
export class RedemptionReviewController {
  constructor(private readonly reviews: RedemptionReviewService) {}

  @Get()
  @ApiOperation({
    summary: 'Redemptions held for review, oldest first, each with the rules it matched and their evidence',
  })
  @ApiOkResponse({ type: ReviewListResponse })
  @ApiErrorResponses(400)
  list(@Query() query: ReviewQueryDto) {
    return this.reviews.list(query.limit, query.offset);
  }

  @Get(':id/evidence')
  @ApiOperation({
    summary: "A held case's evidence: the other redemptions of its e-mail, address and phone; the two countries",
  })
  @ApiOkResponse({ type: ReviewEvidenceResponse })
  @ApiErrorResponses({ 404: REVIEW_MESSAGES.notHeld })
  evidence(
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(REVIEW_MESSAGES.notHeld) }))
    id: string,
  ) {
    return this.reviews.evidence(id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Approve a held redemption: a key from the pool (or the backorder queue), the order e-mail; 409 once decided',
  })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({ 404: REVIEW_MESSAGES.notHeld, 409: REVIEW_MESSAGES.alreadyApproved })
  approve(
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(REVIEW_MESSAGES.notHeld) }))
    id: string,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.reviews.approve(id, requestActor(req, user));
  }

  @Post(':id/refuse')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Refuse a held redemption: its code refunded, the customer e-mailed, optional blocklist entries; 409 once decided',
  })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses(400, { 404: REVIEW_MESSAGES.notHeld, 409: REVIEW_MESSAGES.alreadyRefused })
  refuse(
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(REVIEW_MESSAGES.notHeld) }))
    id: string,
    @Body() dto: RefuseReviewDto,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.reviews.refuse(id, dto.blocklist ?? [], requestActor(req, user));
  }
}
