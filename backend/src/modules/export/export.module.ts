import { Module } from '@nestjs/common';
import { ExportController } from './export.controller';
import { ExportRepository } from './export.repository';
import { ExportService } from './export.service';
import { ExportWriter } from './export-writer.service';

@Module({
  controllers: [ExportController],
  providers: [ExportRepository, ExportWriter, ExportService],
})
export class ExportModule {}
