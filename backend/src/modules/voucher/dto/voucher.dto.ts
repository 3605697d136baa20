import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

export const CODE_STATUSES = ['available', 'redeemed', 'void'] as const;

/** Most codes one JSON void request may name (a JSON body is at most 100 kB); a file (up to 50 MB) takes more. */
export const MAX_VOID_CODES = 1000;

const trimOrUndefined = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
};

export class VoucherCodeListQuery {
  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @Max(500, { message: 'limit must be at most 500' })
  @Min(1, { message: 'limit must be at least 1' })
  @IsInt({ message: 'limit must be a whole number' })
  limit: number = 50;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 1_000_000,
    description: "Page number (the admin lists' contract); wins over `offset`",
  })
  @IsOptional()
  @Type(() => Number)
  @Max(1_000_000, { message: 'page must be at most 1000000' })
  @Min(1, { message: 'page must be at least 1' })
  @IsInt({ message: 'page must be a whole number' })
  page?: number;

  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'Rows to skip, when `page` is not given' })
  @IsOptional()
  @Type(() => Number)
  @Min(0, { message: 'offset must be 0 or more' })
  @IsInt({ message: 'offset must be a whole number' })
  offset: number = 0;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: redeemed only; false: available (unredeemed, not void) only; absent: all. `status` wins.',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'redeemedOnly must be true or false' })
  redeemedOnly?: 'true' | 'false';

  @ApiPropertyOptional({
    enum: [...CODE_STATUSES, 'all'],
    description: 'Codes of one status only (the Void tab: void); omitted, empty or "all": every status',
  })
  @IsOptional()
  @Transform(({ value }) => (value === '' || value === 'all' ? undefined : value))
  @IsIn(CODE_STATUSES, { message: 'status must be available, redeemed, void or all' })
  status?: (typeof CODE_STATUSES)[number];

  @ApiPropertyOptional({ description: 'Part of a voucher code (case-insensitive)' })
  @Transform(trimOrUndefined)
  @IsOptional()
  @MaxLength(100, { message: 'Search text must be at most 100 characters' })
  @IsString({ message: 'Search text must be text' })
  search?: string;
}

export const DELETE_TYPES = ['selected', 'all-unredeemed'] as const;

export class DeleteVoucherCodesDto {
  @ApiProperty({ enum: DELETE_TYPES })
  @IsIn(DELETE_TYPES, { message: 'deleteType must be selected or all-unredeemed' })
  deleteType: (typeof DELETE_TYPES)[number];

  @ApiPropertyOptional({ type: [String], description: 'Required for deleteType=selected' })
  @ValidateIf((o: DeleteVoucherCodesDto) => o.deleteType === 'selected')
  @IsUUID('all', { each: true, message: 'Invalid voucher code ID.' })
  @ArrayMaxSize(10_000, { message: 'At most 10000 voucher codes can be deleted at once' })
  @ArrayNotEmpty({ message: 'Select at least one voucher code to delete.' })
  @IsArray({ message: 'Select at least one voucher code to delete.' })
  voucherCodeIds?: string[];
}

/** docs/product.md §19.3: the codes a marketplace refunded, as JSON (or a CSV/TXT file sent as multipart instead). */
export class VoidVoucherCodesDto {
  @ApiPropertyOptional({
    type: [String],
    description: `Voucher codes (trimmed and upper-cased like an upload), at most ${MAX_VOID_CODES}; or send a multipart \`file\``,
  })
  @IsOptional()
  @IsString({ each: true, message: 'Every voucher code must be text' })
  @ArrayMaxSize(MAX_VOID_CODES, { message: `At most ${MAX_VOID_CODES} voucher codes at once: send a file for more` })
  @ArrayNotEmpty({ message: 'Name at least one voucher code to void.' })
  @IsArray({ message: 'codes must be a list of voucher codes' })
  codes?: string[];
}
