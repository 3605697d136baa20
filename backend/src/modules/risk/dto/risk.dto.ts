import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { BLOCKLIST_KINDS } from '../risk-rules';

const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/* class-validator runs a property's decorators bottom-up and stopAtFirstError keeps the first failure. */
export class RiskRuleDto {
  @ApiProperty()
  @IsBoolean({ message: 'Each rule needs enabled: true or false.' })
  enabled: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: 100000, description: 'emailPerDay and addressPerHour: more than this' })
  @Max(100000, { message: 'A threshold is a whole number from 1 to 100000.' })
  @Min(1, { message: 'A threshold is a whole number from 1 to 100000.' })
  @IsInt({ message: 'A threshold is a whole number from 1 to 100000.' })
  @IsOptional()
  threshold?: number;

  @ApiProperty({ enum: ['review', 'refuse'] })
  @IsIn(['review', 'refuse'], { message: "Each rule's action is review or refuse." })
  action: 'review' | 'refuse';
}

/** `GET /api/risk/rules`'s answer and `PUT`'s body: every rule, each `{enabled, threshold?, action}`. */
export class RiskRulesDto {
  @ApiProperty({ type: RiskRuleDto })
  @ValidateNested()
  @Type(() => RiskRuleDto)
  @IsNotEmpty({ message: 'emailPerDay is required.' })
  emailPerDay: RiskRuleDto;

  @ApiProperty({ type: RiskRuleDto })
  @ValidateNested()
  @Type(() => RiskRuleDto)
  @IsNotEmpty({ message: 'addressPerHour is required.' })
  addressPerHour: RiskRuleDto;

  @ApiProperty({ type: RiskRuleDto })
  @ValidateNested()
  @Type(() => RiskRuleDto)
  @IsNotEmpty({ message: 'disposableEmail is required.' })
  disposableEmail: RiskRuleDto;

  @ApiProperty({ type: RiskRuleDto })
  @ValidateNested()
  @Type(() => RiskRuleDto)
  @IsNotEmpty({ message: 'countryMismatch is required.' })
  countryMismatch: RiskRuleDto;

  @ApiProperty({ type: RiskRuleDto })
  @ValidateNested()
  @Type(() => RiskRuleDto)
  @IsNotEmpty({ message: 'blocklist is required.' })
  blocklist: RiskRuleDto;
}

export class CreateBlocklistEntryDto {
  @ApiProperty({ enum: BLOCKLIST_KINDS })
  @IsIn(BLOCKLIST_KINDS, { message: 'The kind is email, domain, address or phone.' })
  kind: (typeof BLOCKLIST_KINDS)[number];

  @ApiProperty({ example: 'reseller@example.com', maxLength: 254, description: 'An address may be a CIDR' })
  @MaxLength(254, { message: 'The value is at most 254 characters.' })
  @IsNotEmpty({ message: 'The value is required.' })
  @IsString({ message: 'The value is required.' })
  @Transform(trimLower)
  value: string;
}

export class BlocklistEntryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: BLOCKLIST_KINDS })
  kind: string;

  @ApiProperty()
  value: string;

  @ApiProperty({ description: 'Redemptions this entry matched' })
  hits: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;
}
