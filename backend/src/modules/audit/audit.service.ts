import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface AuditEntry {
  action: string;
  success: boolean;
  adminUserId?: string | null;
  resource?: string | null;
  resourceId?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
  details?: Record<string, unknown> | null;
}

/** Writes security_audit_log rows. Pass the transaction's manager to record inside it. */
@Injectable()
export class AuditService {
  private readonly logger = new Logger(AuditService.name);

  constructor(private readonly dataSource: DataSource) {}

  async record(entry: AuditEntry, manager: EntityManager = this.dataSource.manager): Promise<void> {
    try {
      await manager.query(
        `INSERT INTO security_audit_log (admin_user_id, action, resource, resource_id, ip_address, user_agent, success, details)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          entry.adminUserId ?? null,
          entry.action.slice(0, 100),
          entry.resource?.slice(0, 100) ?? null,
          entry.resourceId?.slice(0, 100) ?? null,
          entry.ipAddress?.slice(0, 45) ?? null,
          entry.userAgent?.slice(0, 500) ?? null,
          entry.success,
          entry.details ? JSON.stringify(entry.details) : null,
        ],
      );
    } catch (err) {
      // Outside a transaction an audit failure must not undo the action it describes; it is logged loudly.
      if (manager !== this.dataSource.manager) throw err;
      this.logger.error(`Could not write audit entry ${entry.action}: ${err instanceof Error ? err.message : err}`);
    }
  }
}
