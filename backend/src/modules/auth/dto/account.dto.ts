import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength, MinLength } from 'class-validator';
import {
  NEW_PASSWORD_MAX,
  NEW_PASSWORD_MIN,
  NEW_PASSWORD_PATTERN,
  PASSWORD_MESSAGES,
  USERNAME_PATTERN,
} from '../password-policy';

/* Rules are listed last-to-first (class-validator runs them bottom-up, stopAtFirstError keeps the first). */
export class ChangePasswordDto {
  @ApiProperty()
  @IsNotEmpty({ message: PASSWORD_MESSAGES.currentRequired })
  @IsString({ message: PASSWORD_MESSAGES.currentRequired })
  currentPassword: string;

  @ApiProperty({ minLength: NEW_PASSWORD_MIN, maxLength: NEW_PASSWORD_MAX })
  @Matches(NEW_PASSWORD_PATTERN, { message: PASSWORD_MESSAGES.weak })
  @MaxLength(NEW_PASSWORD_MAX, { message: PASSWORD_MESSAGES.tooLong })
  @MinLength(NEW_PASSWORD_MIN, { message: PASSWORD_MESSAGES.tooShort })
  @IsString({ message: PASSWORD_MESSAGES.tooShort })
  newPassword: string;

  @ApiPropertyOptional({ description: 'When sent, must equal newPassword' })
  @IsString({ message: PASSWORD_MESSAGES.mismatch })
  @IsOptional()
  confirmPassword?: string;
}

export class CreateShopManagerDto {
  @ApiPropertyOptional({ example: 'shop_manager', description: 'Defaults to shop_manager' })
  @Matches(USERNAME_PATTERN, { message: 'Username may contain only letters, numbers and underscores' })
  @Length(3, 50, { message: 'Username must be 3-50 characters' })
  @IsString({ message: 'Username must be 3-50 characters' })
  @IsOptional()
  username?: string;

  @ApiPropertyOptional({ example: 'shop@example.com', description: 'Defaults to <username>@localhost' })
  @IsEmail({}, { message: 'Invalid email address' })
  @MaxLength(254, { message: 'Email address too long' })
  @IsString({ message: 'Invalid email address' })
  @IsOptional()
  email?: string;
}

export class TwoFactorCodeDto {
  @ApiProperty({ example: '123456' })
  @Matches(/^\d{6}$/, { message: 'Two-factor code must be 6 digits' })
  @IsNotEmpty({ message: 'Two-factor code is required' })
  @IsString({ message: 'Two-factor code is required' })
  code: string;
}

/** 2FA setup asks for the current password (docs/product.md §18.5): a stolen access token alone cannot enrol. */
export class TwoFactorSetupDto {
  @ApiProperty({ description: 'The account password' })
  @MaxLength(128, { message: PASSWORD_MESSAGES.currentWrong })
  @IsNotEmpty({ message: PASSWORD_MESSAGES.currentRequired })
  @IsString({ message: PASSWORD_MESSAGES.currentRequired })
  currentPassword: string;
}
