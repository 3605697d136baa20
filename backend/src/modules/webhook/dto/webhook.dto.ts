import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT } from '../webhook-events';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const uniqueEvents = ({ value }: { value: unknown }) => (Array.isArray(value) ? [...new Set(value)] : value);

/* class-validator runs a property's decorators bottom-up and stopAtFirstError keeps the first failure. */
export class CreateWebhookDto {
  @ApiProperty({
    example: 'https://example.com/hooks/licences',
    description: 'https only; must resolve to a public address',
  })
  @MaxLength(2000, { message: 'The webhook URL is too long (at most 2000 characters).' })
  @IsNotEmpty({ message: 'The webhook URL is required.' })
  @IsString({ message: 'The webhook URL is required.' })
  @Transform(trim)
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENTS, enumName: 'WebhookEvent', isArray: true, example: ['redemption.created'] })
  @IsIn(WEBHOOK_EVENTS, { each: true, message: `Events must be among: ${WEBHOOK_EVENTS.join(', ')}.` })
  @ArrayMaxSize(WEBHOOK_EVENTS.length, { message: 'Choose at least one event.' })
  @ArrayNotEmpty({ message: 'Choose at least one event.' })
  @IsArray({ message: 'Choose at least one event.' })
  @Transform(uniqueEvents)
  events: string[];
}

export class WebhookEndpointResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'https://example.com/hooks/licences' }) url: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS, enumName: 'WebhookEvent', isArray: true }) events: string[];
  @ApiProperty() isActive: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Set when the endpoint was paused after failing too long: no attempt is made until it is resumed',
  })
  pausedAt: string | null;
  @ApiProperty({ description: 'Failed attempts in a row since the last success' }) consecutiveFailures: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class CreatedWebhookResponse extends WebhookEndpointResponse {
  @ApiProperty({ example: 'whsec_3q2-7wE…', description: 'The signing secret: shown here once, never again' })
  secret: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT] }) event: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) status: string;
  @ApiProperty({ description: 'Attempts made so far' }) attempts: number;
  @ApiProperty({ type: Number, nullable: true, description: 'HTTP status of the last answer' }) responseStatus:
    number | null;
  @ApiProperty({ type: String, nullable: true }) lastError: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deliveredAt: string | null;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a pending delivery is tried next',
  })
  nextAttemptAt: string | null;
}

export class WebhookDeliveryListResponse {
  @ApiProperty({ type: [WebhookDeliveryResponse] }) deliveries: WebhookDeliveryResponse[];
}

export class WebhookResumeResponse {
  @ApiProperty({ enum: [true] }) success: boolean;
  @ApiProperty({ example: 'Webhook resumed.' }) message: string;
  @ApiProperty({ description: 'Queued deliveries sent again now' }) requeued: number;
}

export class WebhookTestResponse {
  @ApiProperty({ example: 'Test event queued.' }) message: string;
  @ApiProperty({ format: 'uuid' }) deliveryId: string;
}
