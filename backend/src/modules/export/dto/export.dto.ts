import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export const EXPORT_FORMATS = ['csv', 'txt'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const lower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);
const trimOrUndefined = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
};

export class FormatQuery {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'csv' })
  @Transform(lower)
  @IsOptional()
  @IsIn(EXPORT_FORMATS, { message: 'format must be csv or txt' })
  format: ExportFormat = 'csv';
}

export class ProductExportQuery extends FormatQuery {
  @ApiPropertyOptional({ description: 'Only this product; all products when absent' })
  @Transform(trimOrUndefined)
  @IsOptional()
  @IsUUID('all', { message: 'Invalid product ID.' })
  productId?: string;
}

export class RedeemedVouchersExportQuery extends FormatQuery {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: already exported rows (Exported Vouchers tab); otherwise not yet exported ones',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'showExported must be true or false' })
  showExported?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['pending', 'sent', 'failed', 'all'] })
  @Transform(trimOrUndefined)
  @IsOptional()
  @IsIn(['pending', 'sent', 'failed', 'all'], { message: 'emailStatus must be pending, sent or failed' })
  emailStatus?: 'pending' | 'sent' | 'failed' | 'all';

  @ApiPropertyOptional({ description: 'Part of the voucher code, customer name or e-mail' })
  @Transform(trimOrUndefined)
  @IsOptional()
  @MaxLength(254, { message: 'Search text must be at most 254 characters' })
  @IsString({ message: 'Search text must be text' })
  search?: string;
}

export class SelectedRedemptionsExportDto extends FormatQuery {
  @ApiProperty({ type: [String] })
  @IsUUID('all', { each: true, message: 'Invalid redemption ID.' })
  @ArrayMaxSize(10_000, { message: 'At most 10000 redemptions can be exported at once' })
  @ArrayNotEmpty({ message: 'Select at least one redemption to export.' })
  @IsArray({ message: 'Select at least one redemption to export.' })
  redemptionIds: string[];
}
