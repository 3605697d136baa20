import { Module } from '@nestjs/common';
import { LicensePoolService } from './license-pool.service';

@Module({
  providers: [LicensePoolService],
  exports: [LicensePoolService],
})
export class LicenseModule {}
