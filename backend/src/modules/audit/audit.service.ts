import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { AuditRepository } from './audit.repository';
import { addressGroup, validIp } from '../../common/utils/client-ip';
import { countedPerAddressGroup } from './address-counted';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuditEntry {
  action: string;
  success: boolean;
  adminUserId?: string | null;
  resource?: string | null;
  resourceId?: string | null;
  /** The redemption the row is about (its history reads the rows by it); a UUID or nothing. */
  redemptionId?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
  details?: Record<string, unknown> | null;
}

/**
 * Writes security_audit_log rows (the audit module's listener, interceptor and retention); reads are AuditLog's.
 * Inside a `DatabaseService.transaction()` the row is written in it (and fails it when it cannot be written).
 */
@Injectable()
export class AuditService {
  private readonly logger = new Logger(AuditService.name);

  constructor(
    private readonly audit: AuditRepository,
    private readonly database: DatabaseService,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const db = this.database.current;
    // Not an address (a forged X-Forwarded-For, docs/product.md §18.3) → stored as unknown, never cut to fit.
    const ipAddress = validIp(entry.ipAddress ?? '') || null;
    try {
      await this.audit.insert({
        adminUserId: entry.adminUserId ?? null,
        action: entry.action.slice(0, 100),
        resource: entry.resource?.slice(0, 100) ?? null,
        resourceId: entry.resourceId?.slice(0, 100) ?? null,
        redemptionId: entry.redemptionId && UUID.test(entry.redemptionId) ? entry.redemptionId : null,
        ipAddress,
        // Only where a limit reads it (address-counted.ts): an address group outlives no erasure it need not.
        ipGroup: ipAddress && countedPerAddressGroup(entry.action, entry.success) ? addressGroup(ipAddress) : null,
        userAgent: entry.userAgent?.slice(0, 500) ?? null,
        success: entry.success,
        details: entry.details ?? null,
      });
    } catch (err) {
      // Outside a transaction an audit failure must not undo the action it describes; it is logged loudly.
      if (db !== this.database.manager) throw err;
      this.logger.error(`Could not write audit entry ${entry.action}: ${err instanceof Error ? err.message : err}`);
    }
  }

  /** An erasure: the customer's own audit rows lose address, group and user agent (AuditRepository.forgetClient). */
  forgetClient(redemptionIds: string[], customerId: string, email: string): Promise<void> {
    return this.audit.forgetClient(redemptionIds, customerId, email);
  }

  /** docs/product.md §1.5 retention: one batch of rows older than `days`; answers how many went. */
  deleteOlderThan(days: number, batch: number): Promise<number> {
    return this.audit.deleteOlderThan(days, batch);
  }
}
