import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { PageQuery } from '../../../common/dto/page.query';
import type { LicenseType } from '../entities/license-key.entity';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const trimUpper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value);

export const LICENSE_KEY_PATTERN = /^[A-Z0-9-]+$/;
export const LICENSE_TYPES: LicenseType[] = ['single-user', 'volume'];
export const USAGE_STATES = ['available', 'partially-used', 'fully-used'] as const;
export type UsageState = (typeof USAGE_STATES)[number];

/*
 * docs/product.md §6.2 "License key create". class-validator runs a property's decorators bottom-up and
 * stopAtFirstError keeps the first failure, so each property lists its rules last-to-first.
 */
export class CreateLicenseKeyDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'Product is required' })
  @IsNotEmpty({ message: 'Product is required' })
  @IsString({ message: 'Product is required' })
  productId: string;

  @ApiProperty({ example: 'ABCDE-12345-FGHIJ', minLength: 5, maxLength: 29, description: 'Trimmed and upper-cased' })
  @Transform(trimUpper)
  @Matches(LICENSE_KEY_PATTERN, { message: 'License key must contain only uppercase letters, numbers, and hyphens' })
  @MaxLength(29, { message: 'License key must be at most 29 characters' })
  @MinLength(5, { message: 'License key must be at least 5 characters' })
  @IsString({ message: 'License key must be at least 5 characters' })
  licenseKey: string;

  @ApiProperty({ example: 'https://downloads.example.com/office2024.exe' })
  @Transform(trim)
  @Matches(/^https:\/\//i, { message: 'Must be an HTTPS URL' })
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'Must be a valid URL' })
  @MaxLength(2048, { message: 'Download link is too long' })
  @IsNotEmpty({ message: 'Download link is required' })
  @IsString({ message: 'Download link is required' })
  downloadLink: string;

  @ApiProperty({ enum: LICENSE_TYPES, example: 'single-user' })
  @IsIn(LICENSE_TYPES, { message: 'License type is required' })
  licenseType: LicenseType;

  @ApiPropertyOptional({
    minimum: 2,
    maximum: 999,
    description: 'Volume licences only (2-999); a single-user key always has 1 activation',
  })
  @ValidateIf((o: CreateLicenseKeyDto) => o.licenseType === 'volume')
  @Max(999, { message: 'Volume licenses can have at most 999 activations' })
  @Min(2, { message: 'Volume licenses must have at least 2 activations' })
  @IsInt({ message: 'Volume licenses must have at least 2 activations' })
  maxActivations?: number;
}

export class UpdateLicenseKeyDto {
  @ApiProperty({ example: false })
  @IsBoolean({ message: 'isActive must be true or false' })
  isActive: boolean;
}

export class ListLicenseKeysQuery extends PageQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only keys of this product' })
  @IsOptional()
  @IsUUID('all', { message: 'Invalid product' })
  productId?: string;

  @ApiPropertyOptional({ description: 'Part of the key, any case' })
  @IsOptional()
  @Transform(trim)
  @MaxLength(100, { message: 'Search text too long' })
  @IsString()
  search?: string;

  @ApiPropertyOptional({ enum: USAGE_STATES })
  @IsOptional()
  @IsIn(USAGE_STATES, { message: 'status must be available, partially-used or fully-used' })
  status?: UsageState;
}
