import { Module } from '@nestjs/common';
import { LicenseKeyController } from './license-key.controller';
import { LicenseKeyService } from './license-key.service';
import { LicenseRepository } from './license.repository';
import { LicenseStockRepository } from './license-stock.repository';
import { LicenseKeyAdminRepository } from './license-key-admin.repository';
import { LicensePoolStartRepository } from './license-pool-start.repository';
import { PoolStartJob } from './pool-start.job';

@Module({
  controllers: [LicenseKeyController],
  providers: [
    LicenseRepository,
    LicenseKeyAdminRepository,
    LicenseStockRepository,
    LicensePoolStartRepository,
    LicenseKeyService,
    PoolStartJob,
  ],
  exports: [LicenseRepository, LicenseStockRepository, LicenseKeyService],
})
export class LicenseModule {}
