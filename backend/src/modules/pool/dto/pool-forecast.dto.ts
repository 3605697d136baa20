import { ApiProperty } from '@nestjs/swagger';

/** docs/product.md §20.2: one licence-managed product's pool forecast. */
export class PoolForecastResponse {
  @ApiProperty({ format: 'uuid' }) productId: string;
  @ApiProperty() productName: string;
  @ApiProperty({ description: 'Activations the free, active keys of the product still have' })
  availableActivations: number;
  @ApiProperty({ description: 'Redemptions of the product in the last 7 days' }) redeemedLast7Days: number;
  @ApiProperty({ description: 'redeemedLast7Days / 7, two decimals', example: 2.14 }) perDay: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Whole days the available activations last at perDay; null when nothing was redeemed in the last 7 days',
  })
  daysLeft: number | null;
  @ApiProperty({
    description:
      'Under POOL_ALERT_DAYS days or POOL_ALERT_MIN activations: admins are alerted. Never for a product without voucher codes',
  })
  low: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the pool is low, as the product card shows it; null when it is not',
    example: 'fewer than 50 activations available (POOL_ALERT_MIN)',
  })
  lowReason: string | null;
  @ApiProperty({ description: 'Redemptions of the product waiting for a licence key (manual processing)', example: 3 })
  waitingCustomers: number;
}
