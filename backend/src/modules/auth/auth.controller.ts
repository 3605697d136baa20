import { Body, Controller, Get, HttpCode, NotFoundException, Param, ParseUUIDPipe, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, MessageResponse } from '../../common/openapi/api-responses';
import type { Request } from 'express';
import { Public } from '../../common/decorators/public.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { ACCOUNT_MESSAGES, AuthService } from './auth.service';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { ChangePasswordDto, CreateShopManagerDto, TwoFactorCodeDto, TwoFactorSetupDto } from './dto/account.dto';
import { LoginDto, RefreshDto } from './dto/login.dto';
import {
  CreatedAccountResponse,
  DeactivatedAccountResponse,
  LoginResponse,
  SuccessResponse,
  MeResponse,
  RecoveryCodesResponse,
  ResetOperatorResponse,
  TwoFactorEnabledResponse,
  TwoFactorSetupResponse,
  TwoFactorStateResponse,
} from './dto/auth-responses.dto';
import { Permission } from '../../common/permissions';
import { requestMeta } from '../../common/utils/request-actor';
import { TwoFactorService } from './two-factor.service';

/** An account id that is not a UUID names no account: the same 404 as an unknown one. */
const accountId = new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException(ACCOUNT_MESSAGES.userNotFound) });

@ApiTags('admin auth')
@Controller('admin')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly twoFactor: TwoFactorService,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in; with 2FA enabled and no code: {requiresTwoFactor:true} and no tokens' })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrorResponses(400, {
    401: 'Invalid username or password (or two-factor code)',
    423: 'Account temporarily locked. Try again later.',
    429: 'Too many failed attempts. Please wait 15 minutes and try again.',
  })
  login(@Body() dto: LoginDto, @Req() req: Request) {
    return this.auth.login(dto, requestMeta(req));
  }

  @Public()
  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the refresh token; any spent token of the session presented again revokes the session',
    description: 'A session ends SESSION_MAX_HOURS (720) after sign-in whatever the refreshes: 401 after that.',
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrorResponses(400, { 401: 'Invalid or expired refresh token' })
  refresh(@Body() dto: RefreshDto, @Req() req: Request) {
    return this.auth.refresh(dto.refreshToken, requestMeta(req));
  }

  @RequirePermissions()
  @Get('me')
  @ApiOperation({ summary: 'The signed-in user: id, username, email, role, permissions, twoFactorEnabled' })
  @ApiOkResponse({ type: MeResponse })
  me(@CurrentUser() user: AuthUser) {
    return this.auth.me(user);
  }

  @RequirePermissions()
  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'End this session (its access and refresh tokens stop working)' })
  @ApiOkResponse({ type: SuccessResponse })
  logout(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return this.auth.logout(user, requestMeta(req));
  }

  @RequirePermissions()
  @Post('change-password')
  @HttpCode(200)
  @ApiOperation({
    summary: "Change the own password; the account's other sessions end",
    description:
      'Wrong current password: 400. At most 5 wrong attempts per 15 minutes per user (shared with the 2FA calls), then 429.',
  })
  @ApiOkResponse({ type: MessageResponse })
  @ApiErrorResponses({
    400: 'Current password is incorrect, or the new password breaks the policy',
    429: 'Too many failed attempts. Please wait 15 minutes and try again.',
  })
  changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto, @Req() req: Request) {
    return this.auth.changePassword(user, dto, requestMeta(req));
  }

  @RequirePermissions(Permission.AdminResetOperator)
  @Post('reset-operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Give the operator account a new generated password' })
  @ApiOkResponse({ type: ResetOperatorResponse })
  @ApiErrorResponses({ 404: 'Operator account not found' })
  resetOperator(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return this.auth.resetOperator(user, requestMeta(req));
  }

  @RequirePermissions(Permission.AdminCreateShopManager)
  @Post('create-shop-manager')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a shop-manager account with a generated password' })
  @ApiCreatedResponse({ type: CreatedAccountResponse })
  @ApiErrorResponses(400, { 409: 'A user with this username or e-mail already exists' })
  createShopManager(@CurrentUser() user: AuthUser, @Body() dto: CreateShopManagerDto, @Req() req: Request) {
    return this.auth.createShopManager(user, dto, requestMeta(req));
  }

  @RequirePermissions(Permission.AdminDeactivateUser)
  @Post('users/:id/deactivate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Deactivate a staff account: it signs in nowhere, its sessions end at once, its API tokens stop',
    description:
      'Audited. The caller cannot deactivate their own account (400). `npm run admin -- activate` undoes it.',
  })
  @ApiOkResponse({ type: DeactivatedAccountResponse })
  @ApiErrorResponses({ 400: ACCOUNT_MESSAGES.deactivateSelf, 404: ACCOUNT_MESSAGES.userNotFound })
  deactivateUser(@Param('id', accountId) id: string, @CurrentUser() user: AuthUser, @Req() req: Request) {
    return this.auth.deactivateUser(user, id, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/setup')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start TOTP enrolment with {currentPassword}: {secret, otpauthUrl, qrCodeDataUrl}',
    description:
      'Wrong password: 400 "Current password is incorrect", counted. 5 wrong attempts per 15 minutes per user, then 429.',
  })
  @ApiOkResponse({ type: TwoFactorSetupResponse })
  @ApiErrorResponses({
    400: 'Current password is incorrect',
    409: 'Two-factor authentication is already enabled',
    429: 'Too many failed attempts. Please wait 15 minutes and try again.',
  })
  setupTwoFactor(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorSetupDto, @Req() req: Request) {
    return this.twoFactor.setup(user, dto.currentPassword, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Confirm enrolment with a current code: {twoFactorEnabled: true, recoveryCodes: [10 codes]}',
    description:
      'The recovery codes are shown this once (stored hashed). Wrong codes: 400, 5 per 15 minutes, then 429.',
  })
  @ApiOkResponse({ type: TwoFactorEnabledResponse })
  @ApiErrorResponses({
    400: 'Invalid two-factor code, or not set up yet',
    409: 'Two-factor authentication is already enabled',
    429: 'Too many failed attempts. Please wait 15 minutes and try again.',
  })
  enableTwoFactor(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorCodeDto, @Req() req: Request) {
    return this.twoFactor.enable(user, dto.code, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/disable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Turn two-factor off with a current code (wrong codes: 400, 5 per 15 minutes, then 429)' })
  @ApiOkResponse({ type: TwoFactorStateResponse })
  @ApiErrorResponses({
    400: 'Invalid two-factor code, or not enabled',
    429: 'Too many failed attempts. Please wait 15 minutes and try again.',
  })
  disableTwoFactor(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorCodeDto, @Req() req: Request) {
    return this.twoFactor.disable(user, dto.code, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/recovery-codes')
  @HttpCode(200)
  @ApiOperation({
    summary: 'New recovery codes for a current code: {recoveryCodes: [10 codes]}; the old set stops working',
    description:
      'Two-factor must be on (else 400). Wrong codes: 400, counted with the other 2FA calls, 5 per 15 minutes, then 429.',
  })
  @ApiOkResponse({ type: RecoveryCodesResponse })
  @ApiErrorResponses({
    400: 'Invalid two-factor code, or two-factor is off',
    429: 'Too many failed attempts. Please wait 15 minutes and try again.',
  })
  regenerateRecoveryCodes(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorCodeDto, @Req() req: Request) {
    return this.twoFactor.regenerateRecoveryCodes(user, dto.code, requestMeta(req));
  }
}
