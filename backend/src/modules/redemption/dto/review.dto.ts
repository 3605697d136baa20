import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

export class ReviewQueryDto {
  @ApiPropertyOptional({ enum: ['held'], default: 'held' })
  @IsIn(['held'], { message: 'status must be held.' })
  @IsOptional()
  status?: 'held';

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @Max(200, { message: 'limit is a whole number from 1 to 200.' })
  @Min(1, { message: 'limit is a whole number from 1 to 200.' })
  @IsInt({ message: 'limit is a whole number from 1 to 200.' })
  @Type(() => Number)
  @IsOptional()
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @Min(0, { message: 'offset is a whole number, 0 or more.' })
  @IsInt({ message: 'offset is a whole number, 0 or more.' })
  @Type(() => Number)
  @IsOptional()
  offset?: number;
}

export class ReviewRuleResponse {
  @ApiProperty({ example: 'emailPerDay' })
  rule: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'What the rule saw' })
  evidence: Record<string, unknown>;
}

export class HeldRedemptionResponse {
  @ApiProperty({ format: 'uuid' })
  redemptionId: string;

  @ApiProperty()
  voucherCode: string;

  @ApiProperty()
  productName: string;

  @ApiProperty()
  customerEmail: string;

  @ApiProperty({ format: 'date-time' })
  heldAt: Date;

  @ApiProperty({ type: [ReviewRuleResponse] })
  rules: ReviewRuleResponse[];
}

export class ReviewListResponse {
  @ApiProperty({ type: [HeldRedemptionResponse] })
  items: HeldRedemptionResponse[];

  @ApiProperty()
  total: number;
}

export class RefuseReviewDto {
  @ApiPropertyOptional({
    type: [String],
    enum: ['email', 'address', 'phone'],
    description: 'Add these to the blocklist',
  })
  @IsIn(['email', 'address', 'phone'], { each: true, message: 'blocklist lists email, address or phone.' })
  @ArrayMaxSize(3, { message: 'blocklist lists email, address or phone.' })
  @IsArray({ message: 'blocklist lists email, address or phone.' })
  @IsOptional()
  blocklist?: Array<'email' | 'address' | 'phone'>;
}

export class RelatedRedemptionResponse {
  @ApiProperty({ format: 'uuid' })
  redemptionId: string;

  @ApiProperty()
  voucherCode: string;

  @ApiProperty()
  productName: string;

  @ApiProperty({ format: 'date-time' })
  redeemedAt: Date;

  @ApiProperty({ description: 'Held for review too' })
  held: boolean;
}

export class ReviewEvidenceResponse {
  @ApiProperty({ format: 'uuid' })
  redemptionId: string;

  @ApiProperty({ type: String, nullable: true })
  ipAddress: string | null;

  @ApiProperty({ type: String, nullable: true })
  phone: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The address's country (the geo lookup)" })
  addressCountry: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The phone number's country (libphonenumber-js)" })
  phoneCountry: string | null;

  @ApiProperty({ type: [RelatedRedemptionResponse], description: "The e-mail's other redemptions, newest first (20)" })
  sameEmail: RelatedRedemptionResponse[];

  @ApiProperty({ type: [RelatedRedemptionResponse], description: "The address's, within 24 hours of the case (20)" })
  sameAddress: RelatedRedemptionResponse[];

  @ApiProperty({ type: [RelatedRedemptionResponse], description: "The phone's, within 24 hours of the case (20)" })
  samePhone: RelatedRedemptionResponse[];
}
