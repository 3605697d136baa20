import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { USERNAME_PATTERN } from '../password-policy';

/* docs/product.md §6.4 Admin authentication. Rules are listed last-to-first (class-validator runs them bottom-up). */
export class LoginDto {
  @ApiProperty({ example: 'admin', minLength: 3, maxLength: 50 })
  @Matches(USERNAME_PATTERN, { message: 'Username may contain only letters, numbers and underscores' })
  @Length(3, 50, { message: 'Username must be 3-50 characters' })
  @IsNotEmpty({ message: 'Username is required' })
  @IsString({ message: 'Username is required' })
  username: string;

  @ApiProperty({ minLength: 8, maxLength: 128 })
  @Length(8, 128, { message: 'Password must be 8-128 characters' })
  @IsNotEmpty({ message: 'Password is required' })
  @IsString({ message: 'Password is required' })
  password: string;

  @ApiPropertyOptional({ example: '123456', description: 'Six-digit TOTP code when two-factor is enabled' })
  @Matches(/^\d{6}$/, { message: 'Two-factor code must be 6 digits' })
  @IsString({ message: 'Two-factor code must be 6 digits' })
  // An empty field counts as no code: the form sends '' until the 2FA step.
  @ValidateIf((o: LoginDto) => o.twoFactorCode !== '')
  @IsOptional()
  twoFactorCode?: string;

  @ApiPropertyOptional({
    example: 'K7QM-2XWD-R9PA-HT4C',
    description: 'One unused recovery code in place of twoFactorCode (case, spaces and hyphens ignored); accepted once',
  })
  @MaxLength(64, { message: 'Invalid recovery code' })
  @IsString({ message: 'Invalid recovery code' })
  @IsOptional()
  recoveryCode?: string;
}

export class RefreshDto {
  @ApiProperty()
  @IsNotEmpty({ message: 'Refresh token is required' })
  @IsString({ message: 'Refresh token is required' })
  refreshToken: string;
}
