import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  MaxLength,
} from 'class-validator';
import { PageQuery } from '../../../common/dto/page.query';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export const EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type EmailStatusFilter = (typeof EMAIL_STATUSES)[number];

/** Most redemptions one bulk request may name; the dashboard selects from one page of 50. */
export const MAX_BULK_IDS = 1000;

export class ListRedemptionsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: [...EMAIL_STATUSES, 'all'], description: 'Omitted, empty or "all": every status' })
  @IsOptional()
  @Transform(({ value }) => (value === '' || value === 'all' ? undefined : value))
  @IsIn(EMAIL_STATUSES, { message: 'emailStatus must be pending, sent, failed or all' })
  emailStatus?: EmailStatusFilter;

  @ApiPropertyOptional({ default: false, description: 'false: Recent Redemptions; true: Exported Vouchers' })
  @IsOptional()
  @Transform(({ value }) =>
    value === 'true' || value === true ? true : value === 'false' || value === false ? false : value,
  )
  @IsIn([true, false], { message: 'showExported must be true or false' })
  showExported?: boolean;

  @ApiPropertyOptional({ description: 'Part of the voucher code, customer name or e-mail (any case)' })
  @IsOptional()
  @Transform(trim)
  @MaxLength(254, { message: 'Search text too long' })
  @IsString({ message: 'Search text must be text' })
  search?: string;
}

/** docs/product.md §6.3 "Manual licence assignment": both fields non-empty after trimming. */
export class AssignLicenseDto {
  @ApiProperty({ example: 'ABCDE-12345-FGHIJ-KLMNO-PQRST' })
  @Transform(trim)
  // Stored as MANUAL_<key> in license_keys.license_key (64 characters).
  @MaxLength(57, { message: 'License key must be at most 57 characters' })
  @IsNotEmpty({ message: 'License key is required.' })
  @IsString({ message: 'License key is required.' })
  licenseKey: string;

  @ApiProperty({ example: 'https://downloads.example.com/office2024.exe' })
  @Transform(trim)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'Must be a valid URL' })
  @MaxLength(2048, { message: 'Download link is too long' })
  @IsNotEmpty({ message: 'Download link is required.' })
  @IsString({ message: 'Download link is required.' })
  downloadLink: string;
}

export class RedemptionIdsDto {
  @ApiProperty({ type: [String], format: 'uuid' })
  @IsUUID('all', { each: true, message: 'Invalid redemption id' })
  @ArrayMaxSize(MAX_BULK_IDS, { message: `At most ${MAX_BULK_IDS} redemptions at once` })
  @ArrayNotEmpty({ message: 'Select at least one redemption' })
  @IsArray({ message: 'Select at least one redemption' })
  redemptionIds: string[];
}

export class BulkAssignLicenseDto extends AssignLicenseDto {
  @ApiProperty({ type: [String], format: 'uuid' })
  @IsUUID('all', { each: true, message: 'Invalid redemption id' })
  @ArrayMaxSize(MAX_BULK_IDS, { message: `At most ${MAX_BULK_IDS} redemptions at once` })
  @ArrayNotEmpty({ message: 'Select at least one redemption' })
  @IsArray({ message: 'Select at least one redemption' })
  redemptionIds: string[];
}
