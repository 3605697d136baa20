import { Injectable } from '@nestjs/common';
import { AuditRepository } from './audit.repository';

/**
 * The audit log's read side, for the modules that show or count what was recorded: a redemption's history, the
 * login address block, the privacy requests page. Rows are written only by the audit module itself (its listener of
 * the domain events, its read-audit interceptor, the CLI's recorder): nothing here writes.
 */
@Injectable()
export class AuditLog {
  constructor(private readonly audit: AuditRepository) {}

  /** Failed attempts of these actions from the address group `group` (addressGroup) within the last `minutes`. */
  countFailuresFrom(group: string, actions: readonly string[], minutes: number): Promise<number> {
    return this.audit.countFailuresFrom(group, actions, minutes);
  }

  /** Audit rows that name one redemption or list it in a bulk action, oldest first (its history). */
  forRedemption(redemptionId: string) {
    return this.audit.forRedemption(redemptionId);
  }

  /** The audit row of the export that marked redemptions exported at `exportedAt`, if any. */
  exportMarkedAt(exportedAt: Date) {
    return this.audit.exportMarkedAt(exportedAt);
  }

  /** The latest rows of these actions, newest first. */
  latest(actions: string[], limit: number) {
    return this.audit.latest(actions, limit);
  }
}
