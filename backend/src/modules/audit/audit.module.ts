import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditListener } from './audit.listener';
import { AuditRepository } from './audit.repository';
import { AuditRetention } from './audit.retention';
import { AuditService } from './audit.service';
import { InventoryReadInterceptor } from './inventory-read.interceptor';

@Global()
@Module({
  providers: [
    AuditRepository,
    AuditService,
    AuditRetention,
    AuditListener,
    { provide: APP_INTERCEPTOR, useClass: InventoryReadInterceptor },
  ],
  exports: [AuditService],
})
export class AuditModule {}
