import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { RetentionRegistry } from '../retention/retention.registry';
import { AuditService } from './audit.service';

/** The audit log's part of the retention run: rows after AUDIT_RETENTION_DAYS (a year by default). */
@Injectable()
export class AuditRetention implements OnModuleInit {
  constructor(
    private readonly retention: RetentionRegistry,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.retention.deletes('auditLogs', (batch) => this.audit.deleteOlderThan(this.config.auditRetentionDays, batch));
  }
}
