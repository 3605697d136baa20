import { Global, Module } from '@nestjs/common';
import { AuditListener } from './audit.listener';
import { AuditRepository } from './audit.repository';
import { AuditRetention } from './audit.retention';
import { AuditService } from './audit.service';

@Global()
@Module({
  providers: [AuditRepository, AuditService, AuditRetention, AuditListener],
  exports: [AuditService],
})
export class AuditModule {}
