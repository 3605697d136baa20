import { Injectable } from '@nestjs/common';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DatabaseService } from '../../database/database.service';
import { SecurityAuditLog } from './entities/security-audit-log.entity';
import { deleteBatch } from '../../database/query-rows';

/** The one owner of `security_audit_log`. */
@Injectable()
export class AuditRepository {
  constructor(private readonly database: DatabaseService) {}

  async insert(row: Omit<SecurityAuditLog, 'id' | 'createdAt'>): Promise<void> {
    const db = this.database.current;
    // No RETURNING: nothing reads the generated id or timestamp back.
    await db
      .createQueryBuilder()
      .insert()
      .into(SecurityAuditLog)
      .values(row as QueryDeepPartialEntity<SecurityAuditLog>)
      .updateEntity(false)
      .execute();
  }

  /**
   * Failed rows of these actions from one address group (an IPv4 address, an IPv6 /64: addressGroup) within the
   * last `minutes` (idx_security_audit_log_ip_group).
   */
  async countFailuresFrom(group: string, actions: readonly string[], minutes: number): Promise<number> {
    const row = await this.database.manager
      .getRepository(SecurityAuditLog)
      .createQueryBuilder('a')
      .select('count(*)::int', 'n')
      .where('a.ip_group = :group AND NOT a.success AND a.action IN (:...actions)', { group, actions })
      .andWhere('a.created_at > now() - make_interval(mins => :minutes)', { minutes })
      .getRawOne<{ n: number }>();
    return row?.n ?? 0;
  }

  /**
   * The trail of one redemption, oldest first: its rows (`redemption_id`, idx_security_audit_log_redemption) and
   * bulk actions listing it in `details.redemptionIds` (idx_security_audit_log_redemption_ids, whose predicate is
   * repeated here). `redemptionId` must be a UUID.
   */
  async forRedemption(redemptionId: string): Promise<SecurityAuditLog[]> {
    return this.database.manager.query(
      `SELECT id, admin_user_id AS "adminUserId", action, resource, resource_id AS "resourceId",
              redemption_id AS "redemptionId", ip_address AS "ipAddress", user_agent AS "userAgent", success, details,
              created_at AS "createdAt"
         FROM security_audit_log
        WHERE redemption_id = $1::uuid
           OR (details ? 'redemptionIds' AND details -> 'redemptionIds' @> jsonb_build_array($1::text))
        ORDER BY created_at, id`,
      [redemptionId],
    );
  }

  /**
   * The export that marked rows exported at `exportedAt` (the transaction's time, which the export's audit row
   * carries in `details.exportedAt`). The row is written once the file is out, so it is looked for in the hour
   * after (idx_security_audit_log_created bounds the walk).
   */
  async exportMarkedAt(exportedAt: Date): Promise<SecurityAuditLog | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT id, admin_user_id AS "adminUserId", action, details, created_at AS "createdAt"
         FROM security_audit_log
        WHERE created_at >= $1 AND created_at < $1::timestamptz + interval '1 hour'
          AND resource = 'export' AND success AND details ->> 'exportedAt' = $2
        ORDER BY created_at LIMIT 1`,
      [exportedAt, exportedAt.toISOString()],
    );
    return row;
  }

  /**
   * An erasure (docs/product.md §21.3), on its transaction: the customer's own requests about these redemptions
   * and this customer (no staff member's) lose the client's address in both forms (`ip_address`, `ip_group`) and the
   * user agent; a staff search for the address (an export's `details.search`) is replaced. The rows stay (the
   * history). A rare request: a walk of the table.
   */
  async forgetClient(redemptionIds: string[], customerId: string, email: string): Promise<void> {
    const db = this.database.current;
    await db.query(
      `UPDATE security_audit_log SET ip_address = NULL, ip_group = NULL, user_agent = NULL
        WHERE admin_user_id IS NULL AND (ip_address IS NOT NULL OR ip_group IS NOT NULL OR user_agent IS NOT NULL)
          AND ((resource = 'redemption' AND resource_id = ANY($1::text[])) OR (resource = 'customer' AND resource_id = $2))`,
      [redemptionIds, customerId],
    );
    await db.query(
      `UPDATE security_audit_log SET details = jsonb_set(details, '{search}', '"[erased]"')
        WHERE details ? 'search' AND strpos(lower(details ->> 'search'), $1) > 0`,
      [email],
    );
  }

  /** The latest rows of these actions, newest first (Settings → Privacy requests). */
  async latest(actions: string[], limit: number): Promise<SecurityAuditLog[]> {
    return this.database.manager.query(
      `SELECT id, action, resource, resource_id AS "resourceId", success, details, created_at AS "createdAt"
         FROM security_audit_log WHERE action = ANY($1::text[]) ORDER BY created_at DESC, id LIMIT $2`,
      [actions, limit],
    );
  }

  /**
   * Deletes up to `batch` rows older than `days` (idx_security_audit_log_created) and answers how many:
   * retention deletes in batches so no statement holds locks on the table for long.
   */
  async deleteOlderThan(days: number, batch: number): Promise<number> {
    return deleteBatch(
      this.database.manager,
      'security_audit_log',
      'created_at < now() - make_interval(days => $1)',
      [days],
      batch,
    );
  }
}
