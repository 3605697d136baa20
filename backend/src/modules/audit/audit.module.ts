import { Global, Module } from '@nestjs/common';
import { AuditListener } from './audit.listener';
import { AuditLog } from './audit-log';
import { AuditRepository } from './audit.repository';
import { AuditRetention } from './audit.retention';
import { AuditService } from './audit.service';

@Global()
@Module({
  providers: [AuditRepository, AuditService, AuditLog, AuditRetention, AuditListener],
  // AuditService: for InventoryReadInterceptor wherever a route binds it; AuditLog: the read side.
  exports: [AuditService, AuditLog],
})
export class AuditModule {}
