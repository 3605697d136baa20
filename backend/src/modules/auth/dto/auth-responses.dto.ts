import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LoginResponse {
  @ApiPropertyOptional({ description: 'Absent when requiresTwoFactor is true' }) accessToken?: string;
  @ApiPropertyOptional({ description: 'Absent when requiresTwoFactor is true' }) refreshToken?: string;
  @ApiProperty({ description: 'true: send the 6-digit code with the password again' }) requiresTwoFactor: boolean;
}

export class MeResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'admin' }) username: string;
  @ApiProperty({ example: 'admin@localhost' }) email: string;
  @ApiProperty({ example: 'admin' }) role: string;
  @ApiProperty({ type: [String], example: ['dashboard.view'] }) permissions: string[];
  @ApiProperty() twoFactorEnabled: boolean;
}

/** `{success: true}` (logout, ending a session). */
export class SuccessResponse {
  @ApiProperty({ enum: [true] }) success: boolean;
}

export class ResetOperatorResponse {
  @ApiProperty({ example: 'operator' }) username: string;
  @ApiProperty({ description: 'Shown once' }) newPassword: string;
}

export class CreatedAccountResponse {
  @ApiProperty({ example: 'shop_manager_1' }) username: string;
  @ApiProperty({ description: 'Generated, shown once' }) password: string;
}

export class DeactivatedAccountResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'operator' }) username: string;
  @ApiProperty({ enum: [false] }) isActive: boolean;
  @ApiProperty({ description: 'Sessions of the account ended by this call', example: 2 }) sessionsEnded: number;
}

export class TwoFactorSetupResponse {
  @ApiProperty({ description: 'Base32 TOTP secret' }) secret: string;
  @ApiProperty({ example: 'otpauth://totp/…' }) otpauthUrl: string;
  @ApiProperty({ example: 'data:image/png;base64,…' }) qrCodeDataUrl: string;
}

export class TwoFactorStateResponse {
  @ApiProperty() twoFactorEnabled: boolean;
}

export class RecoveryCodesResponse {
  @ApiProperty({ type: [String], description: '10 single-use codes, shown this once (stored hashed)' })
  recoveryCodes: string[];
}

export class TwoFactorEnabledResponse extends RecoveryCodesResponse {
  @ApiProperty({ enum: [true] }) twoFactorEnabled: boolean;
}

export class OwnSessionResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'The session of this request' }) current: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'The sign-in or the last token renewal' }) lastUsedAt: string;
  @ApiProperty({ type: String, nullable: true }) ip: string | null;
  @ApiProperty({ type: String, nullable: true }) userAgent: string | null;
}

export class RevokedSessionsResponse {
  @ApiProperty({ description: 'Sessions ended' }) revoked: number;
}
