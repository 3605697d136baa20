import { ApiProperty } from '@nestjs/swagger';
import { Inventory } from '../../../common/inventory/inventory';
import { Permission } from '../../../common/permissions';

export const HISTORY_EVENT_TYPES = [
  'redeemed',
  'redeem-repeated',
  'key-assigned',
  'email-queued',
  'email-sent',
  'email-failed',
  'email-resent',
  'exported',
  'refunded',
  'deleted',
] as const;
export type HistoryEventType = (typeof HISTORY_EVENT_TYPES)[number];

export class HistoryEventResponse {
  @ApiProperty({ type: String, format: 'date-time' }) at: Date;
  @ApiProperty({ enum: HISTORY_EVENT_TYPES }) type: HistoryEventType;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Who acted: a staff username, "Customer" or "System"; null when the audit trail does not say',
  })
  actor: string | null;
  @ApiProperty({ example: 'License key assigned by hand' }) description: string;
  @ApiProperty({ type: String, nullable: true, description: 'E-mail attempts: the provider (primary, fallback, file)' })
  provider: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'E-mail attempts that failed: the provider’s error' })
  error: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Key assignments: the key, masked (docs/product.md §10.6) for a caller without licenses.view',
  })
  @Inventory(Permission.LicensesView)
  licenseKey: string | null;
}

export class RedemptionHistoryResponse {
  @ApiProperty({ format: 'uuid' }) redemptionId: string;
  @ApiProperty({ description: 'False once the redemption was deleted: what the audit trail and e-mail log still tell' })
  exists: boolean;
  @ApiProperty({ type: [HistoryEventResponse], description: 'Oldest first' }) events: HistoryEventResponse[];
}
