import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditListener } from './audit.listener';
import { AuditLog } from './audit-log';
import { AuditRepository } from './audit.repository';
import { AuditRetention } from './audit.retention';
import { AuditService } from './audit.service';
import { InventoryReadInterceptor } from './inventory-read.interceptor';

@Global()
@Module({
  providers: [
    AuditRepository,
    AuditService,
    AuditLog,
    AuditRetention,
    AuditListener,
    { provide: APP_INTERCEPTOR, useClass: InventoryReadInterceptor },
  ],
  // AuditService: for InventoryReadInterceptor wherever a route binds it; AuditLog: the read side.
  exports: [AuditService, AuditLog],
})
export class AuditModule {}
