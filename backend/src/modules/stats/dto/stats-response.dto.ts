import { ApiProperty } from '@nestjs/swagger';
import { STATS_PERIODS } from '../stats.periods';

class ProductStats {
  @ApiProperty({ format: 'uuid' }) productId: string;
  @ApiProperty() productName: string;
  @ApiProperty({ description: 'Unredeemed codes now' }) activeCodes: number;
  @ApiProperty({ description: 'Redemptions in the period' }) redeemedCodes: number;
  @ApiProperty({ description: 'Codes voided by refunds (docs/product.md §19.3)' }) voidCodes: number;
}

class DailyRedemptions {
  @ApiProperty({ example: '2026-03-09' }) date: string;
  @ApiProperty() count: number;
}

export class StatsResponse {
  @ApiProperty({ enum: STATS_PERIODS }) period: string;
  @ApiProperty({ example: 'Last 7 Days' }) timeRange: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) from: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) to: string | null;
  @ApiProperty({ example: 'UTC' }) timeZone: string;
  @ApiProperty() totalRedemptions: number;
  @ApiProperty() activeVouchers: number;
  @ApiProperty({ description: 'Codes voided by refunds (docs/product.md §19.3): not active, counted apart' })
  voidVouchers: number;
  @ApiProperty({ type: [ProductStats] }) productStats: ProductStats[];
  @ApiProperty({ type: [DailyRedemptions] }) dailyRedemptions: DailyRedemptions[];
}
