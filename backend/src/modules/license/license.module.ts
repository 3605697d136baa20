import { Module } from '@nestjs/common';
import { LicenseKeyController } from './license-key.controller';
import { LicenseKeyService } from './license-key.service';
import { LicenseRepository } from './license.repository';

@Module({
  controllers: [LicenseKeyController],
  providers: [LicenseRepository, LicenseKeyService],
  exports: [LicenseRepository, LicenseKeyService],
})
export class LicenseModule {}
