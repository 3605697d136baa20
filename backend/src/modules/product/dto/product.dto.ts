import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  ValidateIf,
} from 'class-validator';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);
const emptyToNull = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? (value.trim() === '' ? null : value.trim()) : value;

export const PRODUCT_STATUSES = ['active', 'inactive'] as const;

/* Rules are listed last-to-first (class-validator runs them bottom-up; the first failure is the message). */
export class CreateProductDto {
  @ApiProperty({ example: 'Office 2024 Standard (Windows)', maxLength: 200 })
  @Transform(trim)
  @MaxLength(200, { message: 'Product name must be at most 200 characters' })
  @IsNotEmpty({ message: 'Product name is required' })
  @IsString({ message: 'Product name is required' })
  name: string;

  @ApiPropertyOptional({ example: 'https://setup.office.com/', description: 'HTTPS URL, or empty' })
  @Transform(trim)
  @ValidateIf((o: CreateProductDto) => o.downloadLink !== undefined && o.downloadLink !== '')
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'Must be an HTTPS URL' })
  @IsUrl({ require_protocol: true, require_tld: false }, { message: 'Must be a valid URL' })
  @MaxLength(2048, { message: 'Download link must be at most 2048 characters' })
  @IsString({ message: 'Must be a valid URL' })
  downloadLink?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://downloads.example.com/mac/licence-package.pkg',
    description:
      "A Mac product's licence package (License Activation) link: HTTPS URL, or null/empty to clear (docs/product.md §12.7)",
  })
  @Transform(emptyToNull)
  @ValidateIf((o: CreateProductDto) => o.activationLink !== undefined && o.activationLink !== null)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'Must be an HTTPS URL' })
  @IsUrl({ require_protocol: true, require_tld: false }, { message: 'Must be a valid URL' })
  @MaxLength(2048, { message: 'Activation link must be at most 2048 characters' })
  @IsString({ message: 'Must be a valid URL' })
  activationLink?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://go.microsoft.com/fwlink/?linkid=849815',
    description:
      "A Mac product's Office Removal Tool link: HTTPS URL, or null/empty for the vendor's own (docs/product.md §12.7)",
  })
  @Transform(emptyToNull)
  @ValidateIf((o: CreateProductDto) => o.removalToolLink !== undefined && o.removalToolLink !== null)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'Must be an HTTPS URL' })
  @IsUrl({ require_protocol: true, require_tld: false }, { message: 'Must be a valid URL' })
  @MaxLength(2048, { message: 'Removal Tool link must be at most 2048 characters' })
  @IsString({ message: 'Must be a valid URL' })
  removalToolLink?: string | null;

  @ApiPropertyOptional({
    description: 'Key shown to customers of a product that is not licence-managed',
    nullable: true,
  })
  @Transform(emptyToNull)
  @ValidateIf((o: CreateProductDto) => o.productKey !== undefined && o.productKey !== null)
  @MaxLength(100, { message: 'Product key must be at most 100 characters' })
  @IsString({ message: 'Product key must be text' })
  productKey?: string | null;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @MaxLength(500, { message: 'Email subject must be at most 500 characters' })
  @IsString({ message: 'Email subject must be text' })
  emailSubject?: string;

  @ApiPropertyOptional({
    description:
      'HTML with {{customer_name}}, {{voucher_code}}, {{download_link}}, {{license_key}}, {{activation_link}}, {{removal_tool_link}}',
  })
  @IsOptional()
  @MaxLength(100_000, { message: 'Email template must be at most 100000 characters' })
  @IsString({ message: 'Email template must be text' })
  emailTemplate?: string;

  @ApiPropertyOptional({ enum: PRODUCT_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(PRODUCT_STATUSES, { message: 'Status must be active or inactive' })
  status?: (typeof PRODUCT_STATUSES)[number];

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean({ message: 'isLicenseManaged must be true or false' })
  isLicenseManaged?: boolean;
}

/** Partial: the template editor's `{emailSubject, emailTemplate}` body is one case of it (docs/product.md §8.4). */
export class UpdateProductDto extends PartialType(CreateProductDto) {}

export class TestEmailDto {
  @ApiProperty({ example: 'me@example.com' })
  @Transform(trimLower)
  @MaxLength(254, { message: 'Email address too long' })
  // No top-level domain required: the default admin's address is admin@localhost, and only staff addresses are taken.
  @IsEmail({ ignore_max_length: true, require_tld: false }, { message: 'Invalid email address' })
  @IsString({ message: 'Invalid email address' })
  to: string;

  @ApiPropertyOptional({ description: 'Unsaved subject from the editor; the saved one when absent' })
  @IsOptional()
  @MaxLength(500, { message: 'Email subject must be at most 500 characters' })
  @IsString({ message: 'Email subject must be text' })
  emailSubject?: string;

  @ApiPropertyOptional({ description: 'Unsaved template from the editor; the saved one when absent' })
  @IsOptional()
  @MaxLength(100_000, { message: 'Email template must be at most 100000 characters' })
  @IsString({ message: 'Email template must be text' })
  emailTemplate?: string;
}
