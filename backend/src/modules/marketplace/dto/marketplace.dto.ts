import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_CODE_LENGTH, VOUCHER_CODE_PATTERN } from '../../voucher/voucher-code';
import { ADAPTER_KINDS } from '../entities/marketplace-connection.entity';
import { EVENT_TYPES } from '../marketplace-adapter';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const trimUpper = ({ value }: { value: unknown }) =>
  Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v)) : value;

/** The most products one connection serves. */
export const MAX_CONNECTION_PRODUCTS = 100;
/** The most codes one inbound event carries. */
export const MAX_EVENT_CODES = 1000;

export class ConnectionProductDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'Each product needs a valid productId.' })
  productId: string;

  @ApiProperty({
    example: 'SKU-OFFICE-2024',
    maxLength: 200,
    description: "The marketplace's reference for the product",
  })
  @MaxLength(200, { message: 'An externalRef is at most 200 characters.' })
  @IsNotEmpty({ message: 'Each product needs an externalRef.' })
  @IsString({ message: 'Each product needs an externalRef.' })
  @Transform(trim)
  externalRef: string;
}

/* class-validator runs a property's decorators bottom-up and stopAtFirstError keeps the first failure. */
export class UpdateMarketplaceDto {
  @ApiPropertyOptional({ example: 'Groupon', maxLength: 100 })
  @MaxLength(100, { message: 'The name is at most 100 characters.' })
  @IsNotEmpty({ message: 'The name is required.' })
  @IsString({ message: 'The name is required.' })
  @Transform(trim)
  @IsOptional()
  name?: string;

  @ApiPropertyOptional({
    example: 'https://partner-api.example.com/licences',
    description: 'https only; must resolve to a public address (the webhook SSRF guard)',
  })
  @MaxLength(2000, { message: 'The base URL is too long (at most 2000 characters).' })
  @IsNotEmpty({ message: 'The base URL is required.' })
  @IsString({ message: 'The base URL is required.' })
  @Transform(trim)
  @IsOptional()
  baseUrl?: string;

  @ApiPropertyOptional({ type: [ConnectionProductDto] })
  @ValidateNested({ each: true })
  @Type(() => ConnectionProductDto)
  @ArrayMaxSize(MAX_CONNECTION_PRODUCTS, {
    message: `A connection serves at most ${MAX_CONNECTION_PRODUCTS} products.`,
  })
  @IsArray({ message: 'products must be a list of {productId, externalRef}.' })
  @IsOptional()
  products?: ConnectionProductDto[];

  @ApiPropertyOptional({ description: 'Ask the marketplace before a code is claimed' })
  @IsBoolean({ message: 'checkAtRedeem must be true or false.' })
  @IsOptional()
  checkAtRedeem?: boolean;

  @ApiPropertyOptional({ description: 'Report each redemption back' })
  @IsBoolean({ message: 'reportRedemptions must be true or false.' })
  @IsOptional()
  reportRedemptions?: boolean;

  @ApiPropertyOptional({ enum: ['accept', 'refuse'], description: 'When the live check gets no answer in time' })
  @IsIn(['accept', 'refuse'], { message: "onUnreachable must be 'accept' or 'refuse'." })
  @IsOptional()
  onUnreachable?: 'accept' | 'refuse';

  @ApiPropertyOptional({ minimum: 0, maximum: 86400, description: '0: no pull (the marketplace pushes)' })
  @Max(86400, { message: 'pullIntervalSeconds is 0 or between 10 and 86400.' })
  @Min(0, { message: 'pullIntervalSeconds is 0 or between 10 and 86400.' })
  @IsInt({ message: 'pullIntervalSeconds is 0 or between 10 and 86400.' })
  @IsOptional()
  pullIntervalSeconds?: number;
}

export class CreateMarketplaceDto extends UpdateMarketplaceDto {
  @ApiProperty({ example: 'Groupon', maxLength: 100 })
  @IsNotEmpty({ message: 'The name is required.' })
  declare name: string;

  @ApiPropertyOptional({
    example: 'https://partner-api.example.com/licences',
    description: 'Required for the generic protocol; an AppSumo connection is never called (default its API address)',
  })
  declare baseUrl?: string;

  @ApiPropertyOptional({
    enum: ADAPTER_KINDS,
    default: 'generic',
    description: "`appsumo`: AppSumo's licensing webhooks (docs/marketplaces.md); fixed once the connection is made",
  })
  @IsIn(ADAPTER_KINDS, { message: `adapter must be one of: ${ADAPTER_KINDS.join(', ')}.` })
  @IsOptional()
  adapter?: (typeof ADAPTER_KINDS)[number];

  @ApiPropertyOptional({
    maxLength: 200,
    description: "AppSumo only, and required there: the partner's API key, which signs AppSumo's webhooks",
  })
  @MaxLength(200, { message: 'The API key is at most 200 characters.' })
  @IsNotEmpty({ message: 'The API key is required.' })
  @IsString({ message: 'The API key is required.' })
  @Transform(trim)
  @IsOptional()
  apiKey?: string;
}

export class MarketplaceResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ADAPTER_KINDS }) adapter: string;
  @ApiProperty() name: string;
  @ApiProperty() baseUrl: string;
  @ApiProperty({ type: [ConnectionProductDto] }) products: ConnectionProductDto[];
  @ApiProperty() checkAtRedeem: boolean;
  @ApiProperty() reportRedemptions: boolean;
  @ApiProperty({ enum: ['accept', 'refuse'] }) onUnreachable: string;
  @ApiProperty() pullIntervalSeconds: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastEventAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastPullAt: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last pull failed' }) lastPullError: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class CreatedMarketplaceResponse extends MarketplaceResponse {
  @ApiProperty({ example: 'mksec_3q2-7wE…', description: 'The signing secret: shown here once, never again' })
  secret: string;
}

export class MarketplaceReportCounts {
  @ApiProperty() acked: number;
  @ApiProperty() pending: number;
  @ApiProperty() dead: number;
}

export class MarketplaceStatusResponse {
  @ApiProperty() codesReceived: number;
  @ApiProperty() redeemed: number;
  @ApiProperty({ type: MarketplaceReportCounts }) reports: MarketplaceReportCounts;
  @ApiProperty() refundsApplied: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastEventAt: string | null;
  @ApiProperty({ description: 'Age of the oldest pending report (0: none pending)' }) reportLagSeconds: number;
}

export class RetryDeadResponse {
  @ApiProperty({ example: '2 dead reports queued again.' }) message: string;
  @ApiProperty() requeued: number;
}

/** The inbound event body (docs/product.md §24.3), validated once its signature is. */
export class MarketplaceEventDto {
  @ApiProperty({ example: 'evt_01HX…', maxLength: 200, description: 'The event id: applied once per connection' })
  @MaxLength(200, { message: 'The event id is at most 200 characters.' })
  @IsNotEmpty({ message: 'The event id is required.' })
  @IsString({ message: 'The event id is required.' })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES })
  @IsIn(EVENT_TYPES, { message: `type must be one of: ${EVENT_TYPES.join(', ')}.` })
  type: (typeof EVENT_TYPES)[number];

  @ApiProperty({ example: 'SKU-OFFICE-2024', maxLength: 200 })
  @MaxLength(200, { message: 'An externalRef is at most 200 characters.' })
  @IsNotEmpty({ message: 'The externalRef is required.' })
  @IsString({ message: 'The externalRef is required.' })
  externalRef: string;

  @ApiProperty({ type: [String], maxItems: MAX_EVENT_CODES, example: ['GRPN-7Q2M-44XD'] })
  @Matches(VOUCHER_CODE_PATTERN, { each: true, message: 'Invalid voucher code format' })
  @MaxLength(MAX_CODE_LENGTH, { each: true, message: 'Voucher code too long' })
  @IsString({ each: true, message: 'Invalid voucher code format' })
  @ArrayMaxSize(MAX_EVENT_CODES, { message: `An event carries at most ${MAX_EVENT_CODES} codes.` })
  @IsArray({ message: 'codes must be a list of voucher codes.' })
  @Transform(trimUpper)
  codes: string[];
}

export class MarketplaceEventResponse {
  @ApiProperty({ description: 'Codes added, voided or refunded' }) applied: number;
  @ApiProperty({ description: 'Codes that were there already (or already void), or a replayed event' })
  duplicates: number;
  @ApiProperty({ description: 'Codes that are not codes of the mapped product' }) unknown: number;
  @ApiPropertyOptional({ description: 'An AppSumo connection only: true, as AppSumo expects' }) success?: boolean;
  @ApiPropertyOptional({ example: 'purchase', description: "An AppSumo connection only: the webhook's event" })
  event?: string;
}

export class ReconciliationQuery {
  @ApiPropertyOptional({
    example: '2026-12-02',
    description: 'The day (YYYY-MM-DD, the service time zone); default today',
  })
  @Matches(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'date must be a day as YYYY-MM-DD.' })
  @IsOptional()
  date?: string;
}
