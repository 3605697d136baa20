import { Module } from '@nestjs/common';
import { LicenseKeyController } from './license-key.controller';
import { LicenseKeyService } from './license-key.service';
import { LicenseRepository } from './license.repository';
import { LicenseStockRepository } from './license-stock.repository';

@Module({
  controllers: [LicenseKeyController],
  providers: [LicenseRepository, LicenseStockRepository, LicenseKeyService],
  exports: [LicenseRepository, LicenseStockRepository, LicenseKeyService],
})
export class LicenseModule {}
