import { Module } from '@nestjs/common';
import { ProductModule } from '../product/product.module';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsRetention } from './stats.retention';
import { StatsService } from './stats.service';

@Module({
  imports: [ProductModule],
  controllers: [StatsController],
  providers: [StatsRepository, StatsService, StatsRetention],
  exports: [StatsRepository],
})
export class StatsModule {}
