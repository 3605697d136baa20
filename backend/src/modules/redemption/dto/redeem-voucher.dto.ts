import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Equals, IsEmail, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { MAX_CODE_LENGTH, VOUCHER_CODE_PATTERN } from '../../voucher/voucher-code';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const trimUpper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value);
const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

const NAME_PATTERN = /^[\p{L}\p{M}\s'-]+$/u;
const PHONE_PATTERN = /^\+?[1-9][\d\s\-().]{7,15}$/;

/*
 * docs/product.md §6.1, redemption form. class-validator runs a property's decorators from the bottom up and
 * stopAtFirstError keeps the first failure, so each property lists its rules last-to-first.
 * Properties are checked in declaration order; the first failing one gives the response message.
 */
export class RedeemVoucherDto {
  @ApiProperty({ example: 'ABCD-1234-EFGH', maxLength: MAX_CODE_LENGTH })
  @Transform(trimUpper)
  @Matches(VOUCHER_CODE_PATTERN, { message: 'Invalid voucher code format' })
  @MaxLength(MAX_CODE_LENGTH, { message: 'Voucher code too long' })
  @IsNotEmpty({ message: 'Voucher code is required' })
  @IsString({ message: 'Voucher code is required' })
  voucherCode: string;

  @ApiProperty({ example: 'Ann', maxLength: 50 })
  @Transform(trim)
  @Matches(NAME_PATTERN, { message: 'First name contains invalid characters' })
  @MaxLength(50, { message: 'First name too long' })
  @IsNotEmpty({ message: 'First name is required' })
  @IsString({ message: 'First name is required' })
  firstName: string;

  @ApiProperty({ example: "O'Neil", maxLength: 50 })
  @Transform(trim)
  @Matches(NAME_PATTERN, { message: 'Last name contains invalid characters' })
  @MaxLength(50, { message: 'Last name too long' })
  @IsNotEmpty({ message: 'Last name is required' })
  @IsString({ message: 'Last name is required' })
  lastName: string;

  @ApiProperty({ example: 'ann@example.com', maxLength: 254 })
  @Transform(trimLower)
  @MaxLength(254, { message: 'Email address too long' })
  @IsEmail({ ignore_max_length: true }, { message: 'Invalid email address' })
  @IsString({ message: 'Invalid email address' })
  email: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: '+1 302 555 0100', maxLength: 20 })
  @Transform(trim)
  @ValidateIf((o: RedeemVoucherDto) => o.phone !== undefined && o.phone !== null && o.phone !== '')
  @Matches(PHONE_PATTERN, { message: 'Invalid phone number format' })
  @MaxLength(20, { message: 'Phone number too long' })
  @IsString({ message: 'Invalid phone number format' })
  phone?: string | null;

  @ApiProperty({ example: true })
  @Equals(true, { message: 'You must accept the privacy policy and terms & conditions to proceed' })
  acceptPrivacyPolicy: boolean;

  @ApiPropertyOptional({ description: 'Page-load timestamp, as a string' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  submissionTime?: string;

  @ApiPropertyOptional({ description: 'Honeypot: must be empty' })
  @ValidateIf((o: RedeemVoucherDto) => o.website !== undefined && o.website !== null)
  @Equals('', { message: 'Bot detected' })
  website?: string;

  @ApiPropertyOptional({ description: 'Honeypot: must be empty' })
  @ValidateIf((o: RedeemVoucherDto) => o.company_website !== undefined && o.company_website !== null)
  @Equals('', { message: 'Bot detected' })
  company_website?: string;
}
