import { Injectable } from '@nestjs/common';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DatabaseService, Db } from '../../database/database.service';
import { SecurityAuditLog } from './entities/security-audit-log.entity';

/** The one owner of `security_audit_log`. */
@Injectable()
export class AuditRepository {
  constructor(private readonly database: DatabaseService) {}

  async insert(row: Omit<SecurityAuditLog, 'id' | 'createdAt'>, db: Db = this.database.manager): Promise<void> {
    // No RETURNING: nothing reads the generated id or timestamp back.
    await db.createQueryBuilder().insert().into(SecurityAuditLog).values(row as QueryDeepPartialEntity<SecurityAuditLog>).updateEntity(false).execute();
  }

  /** Failed rows of these actions from one address within the last `minutes` (idx_security_audit_log_ip). */
  async countFailuresFrom(ipAddress: string, actions: string[], minutes: number): Promise<number> {
    const row = await this.database.manager
      .getRepository(SecurityAuditLog)
      .createQueryBuilder('a')
      .select('count(*)::int', 'n')
      .where('a.ip_address = :ipAddress AND NOT a.success AND a.action IN (:...actions)', { ipAddress, actions })
      .andWhere('a.created_at > now() - make_interval(mins => :minutes)', { minutes })
      .getRawOne<{ n: number }>();
    return row?.n ?? 0;
  }

  /**
   * Deletes up to `batch` rows older than `days` (idx_security_audit_log_created) and answers how many:
   * retention deletes in batches so no statement holds locks on the table for long.
   */
  async deleteOlderThan(days: number, batch: number): Promise<number> {
    const [{ n }] = await this.database.manager.query(
      `WITH d AS (DELETE FROM security_audit_log
                   WHERE id IN (SELECT id FROM security_audit_log WHERE created_at < now() - make_interval(days => $1) LIMIT $2)
                   RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [days, batch],
    );
    return n;
  }
}
