import { Injectable, NotFoundException } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log';
import type { SecurityAuditLog } from '../audit/entities/security-audit-log.entity';
import { AdminUserRepository } from '../auth/admin-user.repository';
import { stripManualPrefix } from '../license/entities/license-key.entity';
import { LicenseStockRepository, RedemptionAssignment } from '../license/license-stock.repository';
import { EmailLogRepository } from '../mail/email-log.repository';
import { RedemptionActivityRepository, RedemptionFacts } from '../redemption/redemption-activity.repository';
import { REDEMPTION_ADMIN_MESSAGES } from '../redemption/redemption-admin.messages';
import { REPEAT_ACTION } from '../redemption/redemption.service';
import { HistoryEventResponse, HistoryEventType, RedemptionHistoryResponse } from './dto/redemption-history.dto';

const ASSIGN_ACTIONS = ['redemption.assign-license', 'redemption.bulk-assign-license'];
/** Why a repeated redeem was refused (the audit row's `details.refusal`), as the history tells it. */
const REPEAT_REFUSALS: Record<string, string> = {
  'no-idempotency-key': 'without the redeem page’s key',
  'other-idempotency-key': 'with another redeem page’s key',
  'token-lifetime-over': 'after the success-token lifetime',
  refunded: 'after the refund',
};
const CUSTOMER = 'Customer';
const SYSTEM = 'System';

type Event = Omit<HistoryEventResponse, 'provider' | 'error' | 'licenseKey'> & Partial<HistoryEventResponse>;

/**
 * docs/product.md §20.3 redemption history: what happened to one redemption, from the owners of each part: its own row
 * (redemption module), its key assignments (licence module), the audit trail of staff and customer actions
 * (audit module; names from the auth module) and every e-mail attempt (mail module).
 *
 * The audit trail is the rows that belong to the redemption (`redemption_id`) and the bulk actions that list it. A
 * manual assignment's row names the key it assigned (`details.licenseKeyId`, a bulk one's `licenseKeyIds`), which
 * ties it to its assignment. An export marks many redemptions: its audit row carries the time it marked them
 * (`details.exportedAt`), which is the redemption's `exported_at` (the latest export: an earlier one is not told).
 */
@Injectable()
export class RedemptionHistoryService {
  constructor(
    private readonly activity: RedemptionActivityRepository,
    private readonly stock: LicenseStockRepository,
    private readonly audit: AuditLog,
    private readonly emailLogs: EmailLogRepository,
    private readonly users: AdminUserRepository,
  ) {}

  async history(id: string): Promise<RedemptionHistoryResponse> {
    const [facts, trail, logs] = await Promise.all([
      this.activity.facts(id),
      this.audit.forRedemption(id),
      this.emailLogs.forRedemption(id),
    ]);
    if (!facts && !trail.length && !logs.length) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
    const [assignments, exportRow] = await Promise.all([
      facts ? this.stock.assignmentsOf(id) : Promise.resolve([]),
      facts?.exportedAt ? this.audit.exportMarkedAt(facts.exportedAt) : Promise.resolve(undefined),
    ]);
    const adminIds = [...trail, ...(exportRow ? [exportRow] : [])]
      .map((r) => r.adminUserId)
      .filter((u): u is string => !!u);
    const names = await this.users.usernames([...new Set(adminIds)]);
    const who = (row: Pick<SecurityAuditLog, 'adminUserId'> | undefined) =>
      row?.adminUserId ? (names.get(row.adminUserId) ?? 'Deleted user') : null;

    const events: Event[] = [
      ...(facts ? this.rowEvents(facts, exportRow && { actor: who(exportRow), kind: exportRow.action }) : []),
      ...this.assignmentEvents(facts, assignments, trail, who),
      ...this.auditEvents(trail, who),
      ...logs.map((log): Event => ({
        at: log.createdAt,
        type: log.status === 'sent' ? 'email-sent' : 'email-failed',
        actor: SYSTEM,
        description: `${log.status === 'sent' ? 'E-mail sent' : 'E-mail attempt failed'} to ${log.recipient || '(erased)'} via ${log.provider}`,
        provider: log.provider,
        error: log.error,
      })),
    ];
    return { redemptionId: id, exists: !!facts, events: ordered(events) };
  }

  /** Redeemed, exported and refunded, from the redemption's own row. */
  private rowEvents(facts: RedemptionFacts, exported: { actor: string | null; kind: string } | undefined): Event[] {
    const events: Event[] = [
      {
        at: facts.redeemedAt,
        type: 'redeemed',
        actor: CUSTOMER,
        description: `Voucher ${facts.code} redeemed by ${facts.customerEmail ?? 'a customer whose personal data was erased'}`,
      },
    ];
    // A product without keys sends its e-mail at once; a licence-managed one when its key is assigned.
    if (!facts.isLicenseManaged) events.push(queued(facts.redeemedAt, SYSTEM, 'Order e-mail queued'));
    if (facts.exportedAt) {
      const how = exported ? ` (${exported.kind.replace(/^export\./, '')})` : '';
      events.push({
        at: facts.exportedAt,
        type: 'exported',
        actor: exported?.actor ?? null,
        description: `Exported${how}`,
      });
    }
    if (facts.refundedAt) {
      events.push({
        at: facts.refundedAt,
        type: 'refunded',
        actor: null,
        description: 'Voucher refunded after redemption; the customer keeps the licence',
      });
    }
    return events;
  }

  /**
   * Each key given to the redemption, by whom: the latest audit row of a manual assignment that names the key (a key
   * given again, a corrected link, keeps one assignment); a pool key is the system's (at the redemption, or later by
   * Fix Pending Emails). Assignment audit rows without an assignment (the redemption was deleted, its assignments
   * detached) still tell the key's last characters.
   */
  private assignmentEvents(
    facts: RedemptionFacts | undefined,
    assignments: RedemptionAssignment[],
    trail: SecurityAuditLog[],
    who: (row: SecurityAuditLog | undefined) => string | null,
  ): Event[] {
    const assignRows = trail.filter((r) => r.success && ASSIGN_ACTIONS.includes(r.action));
    const matched = new Set<SecurityAuditLog>();
    const events: Event[] = [];
    for (const a of assignments) {
      const naming = assignRows.filter((r) => !matched.has(r) && assignedKeys(r).includes(a.licenseKeyId));
      const row = naming[naming.length - 1];
      if (row) matched.add(row);
      const atRedemption = facts && new Date(a.assignedAt).getTime() === new Date(facts.redeemedAt).getTime();
      const description = a.isManual
        ? 'License key assigned by hand'
        : atRedemption
          ? 'License key assigned from the pool'
          : 'License key assigned from the pool (the redemption had waited for one)';
      const actor = row ? who(row) : a.isManual ? null : SYSTEM;
      // In clear: HistoryEventResponse declares it inventory, masked on the way out for a caller without licenses.view.
      const key = a.licenseKey === null ? null : stripManualPrefix(a.licenseKey);
      events.push({ at: a.assignedAt, type: 'key-assigned', actor, description, licenseKey: key });
      events.push(queued(a.assignedAt, SYSTEM, 'Order e-mail queued with the license key'));
    }
    for (const row of assignRows.filter((r) => !matched.has(r))) {
      const keyEnd = typeof row.details?.keyEnd === 'string' ? ` ending in ${row.details.keyEnd}` : '';
      events.push({
        at: row.createdAt,
        type: 'key-assigned',
        actor: who(row),
        description: `License key${keyEnd} assigned by hand`,
      });
    }
    return events;
  }

  /**
   * Repeated redeems (granted or refused), resends (staff or customer) and deletions from the audit trail.
   * A repeat is the code sent again with the e-mail it was redeemed with (docs/product.md §19.1).
   */
  private auditEvents(trail: SecurityAuditLog[], who: (row: SecurityAuditLog) => string | null): Event[] {
    const events: Event[] = [];
    for (const row of trail.filter((r) => r.action === REPEAT_ACTION)) {
      const refusal = typeof row.details?.refusal === 'string' ? REPEAT_REFUSALS[row.details.refusal] : undefined;
      events.push({
        at: row.createdAt,
        type: 'redeem-repeated',
        actor: CUSTOMER,
        description: row.success
          ? 'Redeemed again with the same code, e-mail and redeem page: a new success-page link, nothing else'
          : `Redeemed again with the same code and e-mail${refusal ? ` ${refusal}` : ''}: refused (already redeemed)`,
      });
    }
    for (const row of trail.filter((r) => r.success)) {
      if (row.action === 'redemption.resend-email' || row.action === 'redemption.customer-resend') {
        const actor = row.action === 'redemption.customer-resend' ? CUSTOMER : who(row);
        events.push({
          at: row.createdAt,
          type: 'email-resent',
          actor,
          description: 'Order e-mail sent again on request',
        });
        events.push(queued(row.createdAt, SYSTEM, 'Order e-mail queued'));
      } else if (row.action === 'customer.erasure') {
        events.push({
          at: row.createdAt,
          type: 'erased',
          actor: CUSTOMER,
          description: 'Personal data erased at the customer’s request',
        });
      } else if (row.action === 'redemption.delete' || row.action === 'redemption.bulk-delete') {
        events.push({ at: row.createdAt, type: 'deleted', actor: who(row), description: 'Redemption deleted' });
      }
    }
    return events;
  }
}

/** The keys an assignment's audit row names. */
function assignedKeys(row: SecurityAuditLog): unknown[] {
  const { licenseKeyId, licenseKeyIds } = row.details ?? {};
  return Array.isArray(licenseKeyIds) ? licenseKeyIds : [licenseKeyId];
}

function queued(at: Date, actor: string, description: string): Event {
  return { at, type: 'email-queued', actor, description };
}

/** The order a reader expects at equal times: the cause before its effects. */
const TYPE_ORDER: HistoryEventType[] = [
  'redeemed',
  'redeem-repeated',
  'key-assigned',
  'email-resent',
  'email-queued',
  'email-sent',
  'email-failed',
  'exported',
  'refunded',
  'erased',
  'deleted',
];

function ordered(events: Event[]): HistoryEventResponse[] {
  return events
    .map((e) => ({ provider: null, error: null, licenseKey: null, ...e, at: new Date(e.at) }))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || TYPE_ORDER.indexOf(a.type) - TYPE_ORDER.indexOf(b.type));
}
