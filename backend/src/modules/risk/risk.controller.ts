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
  Req,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { ApiErrorResponses, SuccessMessageResponse } from '../../common/openapi/api-responses';
import { Permission } from '../../common/permissions';
import { requestActor } from '../../common/utils/request-actor';
import { BlocklistEntryResponse, CreateBlocklistEntryDto, RiskRulesDto } from './dto/risk.dto';
import { RiskRules } from './risk-rules';
import { RISK_MESSAGES, RiskService } from './risk.service';

/** Settings → Risk (docs/product.md §25.1): the rules and the blocklist, admin only like every setting. */
@ApiTags('risk')
@Controller('risk')
@RequirePermissions(Permission.SettingsAccess)
export class RiskController {
  constructor(private readonly risk: RiskService) {}

  @Get('rules')
  @ApiOperation({ summary: 'The risk rules, each {enabled, threshold?, action: review|refuse}; all off by default' })
  @ApiOkResponse({ type: RiskRulesDto })
  @ApiErrorResponses()
  rules() {
    return this.risk.rules();
  }

  @Put('rules')
  @ApiOperation({ summary: 'Replace the risk rules (every rule in one object); in force on every instance within 5 s' })
  @ApiOkResponse({ type: RiskRulesDto })
  @ApiErrorResponses(400)
  saveRules(@Body() dto: RiskRulesDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.risk.saveRules(dto as RiskRules, requestActor(req, user));
  }

  @Get('blocklist')
  @ApiOperation({ summary: 'Blocklist entries (e-mail, domain, address or CIDR, phone) with their hit counts' })
  @ApiOkResponse({ type: [BlocklistEntryResponse] })
  @ApiErrorResponses()
  blocklist() {
    return this.risk.blocklist();
  }

  @Post('blocklist')
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a blocklist entry (an existing one of the same kind and value is answered as is)' })
  @ApiCreatedResponse({ type: BlocklistEntryResponse })
  @ApiErrorResponses(400)
  add(@Body() dto: CreateBlocklistEntryDto, @Req() req: Request, @CurrentUser() user?: AuthUser) {
    return this.risk.addToBlocklist(dto.kind, dto.value, requestActor(req, user));
  }

  @Delete('blocklist/:id')
  @ApiOperation({ summary: 'Remove a blocklist entry' })
  @ApiOkResponse({ type: SuccessMessageResponse })
  @ApiErrorResponses({ 404: RISK_MESSAGES.notFound })
  remove(
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(RISK_MESSAGES.notFound) }))
    id: string,
    @Req() req: Request,
    @CurrentUser() user?: AuthUser,
  ) {
    return this.risk.removeFromBlocklist(id, requestActor(req, user));
  }
}
