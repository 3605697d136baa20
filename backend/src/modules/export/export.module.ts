import { Module } from '@nestjs/common';
import { VoucherModule } from '../voucher/voucher.module';
import { ExportController } from './export.controller';
import { ExportRepository } from './export.repository';
import { ExportService } from './export.service';
import { ExportWriter } from './export-writer.service';

@Module({
  // A batch's reconciliation looks the batch up through its owner.
  imports: [VoucherModule],
  controllers: [ExportController],
  providers: [ExportRepository, ExportWriter, ExportService],
})
export class ExportModule {}
