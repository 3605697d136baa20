import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/decorators/public.decorator';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { AuthService } from './auth.service';
import { AuthUser, CurrentUser } from '../../common/decorators/current-user.decorator';
import { ChangePasswordDto, CreateShopManagerDto, TwoFactorCodeDto, TwoFactorSetupDto } from './dto/account.dto';
import { LoginDto, RefreshDto } from './dto/login.dto';
import { Permission } from '../../common/permissions';
import { requestMeta } from '../../common/utils/request-actor';
import { TwoFactorService } from './two-factor.service';

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
  refresh(@Body() dto: RefreshDto, @Req() req: Request) {
    return this.auth.refresh(dto.refreshToken, requestMeta(req));
  }

  @RequirePermissions()
  @Get('me')
  @ApiOperation({ summary: 'The signed-in user: id, username, email, role, permissions, twoFactorEnabled' })
  me(@CurrentUser() user: AuthUser) {
    return this.auth.me(user);
  }

  @RequirePermissions()
  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'End this session (its access and refresh tokens stop working)' })
  logout(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return this.auth.logout(user, requestMeta(req));
  }

  @RequirePermissions()
  @Post('change-password')
  @HttpCode(200)
  @ApiOperation({
    summary: "Change the own password; the account's other sessions end",
    description: 'Wrong current password: 400. At most 5 wrong attempts per 15 minutes per user (shared with the 2FA calls), then 429.',
  })
  @ApiResponse({ status: 429, description: 'Too many failed attempts. Please wait 15 minutes and try again.' })
  changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto, @Req() req: Request) {
    return this.auth.changePassword(user, dto, requestMeta(req));
  }

  @RequirePermissions(Permission.AdminResetOperator)
  @Post('reset-operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Give the operator account a new generated password' })
  resetOperator(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return this.auth.resetOperator(user, requestMeta(req));
  }

  @RequirePermissions(Permission.AdminCreateShopManager)
  @Post('create-shop-manager')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a shop-manager account with a generated password' })
  createShopManager(@CurrentUser() user: AuthUser, @Body() dto: CreateShopManagerDto, @Req() req: Request) {
    return this.auth.createShopManager(user, dto, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/setup')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start TOTP enrolment with {currentPassword}: {secret, otpauthUrl, qrCodeDataUrl}',
    description: 'Wrong password: 400 "Current password is incorrect", counted. 5 wrong attempts per 15 minutes per user, then 429.',
  })
  @ApiResponse({ status: 429, description: 'Too many failed attempts. Please wait 15 minutes and try again.' })
  setupTwoFactor(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorSetupDto, @Req() req: Request) {
    return this.twoFactor.setup(user, dto.currentPassword, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/enable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm enrolment with a current code (wrong codes: 400, 5 per 15 minutes, then 429)' })
  @ApiResponse({ status: 429, description: 'Too many failed attempts. Please wait 15 minutes and try again.' })
  enableTwoFactor(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorCodeDto, @Req() req: Request) {
    return this.twoFactor.enable(user, dto.code, requestMeta(req));
  }

  @RequirePermissions()
  @Post('2fa/disable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Turn two-factor off with a current code (wrong codes: 400, 5 per 15 minutes, then 429)' })
  @ApiResponse({ status: 429, description: 'Too many failed attempts. Please wait 15 minutes and try again.' })
  disableTwoFactor(@CurrentUser() user: AuthUser, @Body() dto: TwoFactorCodeDto, @Req() req: Request) {
    return this.twoFactor.disable(user, dto.code, requestMeta(req));
  }
}
