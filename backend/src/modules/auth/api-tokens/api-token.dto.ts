import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { TOKEN_PERMISSIONS } from '../../../common/permissions';

export const API_TOKEN_MESSAGES = {
  name: 'Name must be 1-100 characters',
  permissions: `Permissions must be a non-empty list of data permissions: ${TOKEN_PERMISSIONS.join(', ')}`,
  expiresInDays: 'expiresInDays must be a whole number from 1 to 3650',
  notFound: 'API token not found',
  rateLimited: 'Too many requests with this API token. Please slow down.',
} as const;

export class CreateApiTokenDto {
  @ApiProperty({ example: 'Shop integration', maxLength: 100 })
  @Matches(/\S/, { message: API_TOKEN_MESSAGES.name })
  @Length(1, 100, { message: API_TOKEN_MESSAGES.name })
  @IsString({ message: API_TOKEN_MESSAGES.name })
  name: string;

  @ApiProperty({
    type: [String],
    enum: TOKEN_PERMISSIONS,
    enumName: 'TokenPermission',
    example: ['vouchers.view', 'vouchers.upload'],
  })
  @IsIn(TOKEN_PERMISSIONS, { each: true, message: API_TOKEN_MESSAGES.permissions })
  @ArrayUnique({ message: API_TOKEN_MESSAGES.permissions })
  @ArrayMaxSize(TOKEN_PERMISSIONS.length, { message: API_TOKEN_MESSAGES.permissions })
  @ArrayNotEmpty({ message: API_TOKEN_MESSAGES.permissions })
  @IsArray({ message: API_TOKEN_MESSAGES.permissions })
  permissions: string[];

  @ApiPropertyOptional({ minimum: 1, maximum: 3650, default: 90 })
  @Max(3650, { message: API_TOKEN_MESSAGES.expiresInDays })
  @Min(1, { message: API_TOKEN_MESSAGES.expiresInDays })
  @IsInt({ message: API_TOKEN_MESSAGES.expiresInDays })
  @IsOptional()
  expiresInDays?: number;
}

export class ApiTokenResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Shop integration' }) name: string;
  @ApiProperty({ type: [String], example: ['vouchers.view'] }) permissions: string[];
  @ApiProperty({ format: 'date-time' }) createdAt: Date;
  @ApiProperty({ format: 'date-time' }) expiresAt: Date;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Noted at most once a minute' })
  lastUsedAt: Date | null;
  @ApiProperty({ nullable: true, type: String, example: 'admin', description: 'Username of the admin who created it' })
  createdBy: string | null;
}

export class CreatedApiTokenResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Shop integration' }) name: string;
  @ApiProperty({ description: '`ovr_` + 43 characters; shown this once, stored only as its SHA-256' }) token: string;
  @ApiProperty({ type: [String], example: ['vouchers.view'] }) permissions: string[];
  @ApiProperty({ format: 'date-time' }) expiresAt: Date;
}
