import { Module } from '@nestjs/common';
import { LicenseKeyController } from './license-key.controller';
import { LicenseKeyService } from './license-key.service';
import { LicensePoolService } from './license-pool.service';

@Module({
  controllers: [LicenseKeyController],
  providers: [LicensePoolService, LicenseKeyService],
  exports: [LicensePoolService, LicenseKeyService],
})
export class LicenseModule {}
