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

  @ApiPropertyOptional({ default: 0, minimum: 0 })
  @IsOptional()
  @Type(() => Number)
  @Min(0, { message: 'offset must be 0 or more' })
  @IsInt({ message: 'offset must be a whole number' })
  offset: number = 0;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: redeemed only; false: unredeemed only; absent: all',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'redeemedOnly must be true or false' })
  redeemedOnly?: 'true' | 'false';

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
