import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** `POST /api/admin/oidc/exchange`: the one-time code from the login page's `#sso-code=` fragment. */
export class OidcExchangeDto {
  @ApiProperty({ description: "The callback's one-time code (43 characters, base64url)", maxLength: 128 })
  @MaxLength(128, { message: 'Single sign-on code is invalid' })
  @IsNotEmpty({ message: 'Single sign-on code is required' })
  @IsString({ message: 'Single sign-on code is required' })
  code: string;
}
