import { Module } from '@nestjs/common';
import { ProductModule } from '../product/product.module';
import { VoucherModule } from '../voucher/voucher.module';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

@Module({
  imports: [ProductModule, VoucherModule],
  controllers: [StatsController],
  providers: [StatsRepository, StatsService],
})
export class StatsModule {}
