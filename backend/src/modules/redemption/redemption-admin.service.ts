import { BadRequestException, ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { RequestActor } from '../../common/utils/request-actor';
import { DatabaseService } from '../../database/database.service';
import { JobQueue } from '../jobs/job-queue';
import { MANUAL_KEY_PREFIX } from '../license/entities/license-key.entity';
import { LicenseRepository } from '../license/license.repository';
import { REDEMPTION_MAIL } from './order-mail';
import { AssignLicenseDto, BulkAssignLicenseDto } from './dto/redemption-admin.dto';
import { PoolAssignmentService } from './pool-assignment.service';
import { isMacProduct, REDEMPTION_ADMIN_MESSAGES } from './redemption-admin.messages';
import { AdminRedemptionView } from './redemption-list.repository';
import { RedemptionListService } from './redemption-list.service';
import { RedemptionRepository } from './redemption.repository';
import { DomainEvents } from '../../events/domain-events.service';

export { isMacProduct, REDEMPTION_ADMIN_MESSAGES };
export type { AdminRedemptionView };

/** The admin's actions on redemptions: resend, assign licences, delete, Fix Pending Emails, Clean System. */
const LOCK_NOT_AVAILABLE = '55P03';
const CLEANUP_ATTEMPTS = 20;

@Injectable()
export class RedemptionAdminService {
  private readonly logger = new Logger(RedemptionAdminService.name);

  constructor(
    private readonly database: DatabaseService,
    private readonly redemptions: RedemptionRepository,
    private readonly licenses: LicenseRepository,
    private readonly lists: RedemptionListService,
    private readonly events: DomainEvents,
    private readonly jobs: JobQueue,
    private readonly pool: PoolAssignmentService,
  ) {}

  /** Sends the order e-mail again: the status goes back to pending, any stale claim is cleared, a job is queued. */
  async resendEmail(id: string, actor: RequestActor) {
    const requeued = await this.redemptions.requeueEmail(id);
    if (!requeued) {
      const held = await this.redemptions.heldForReview(id);
      if (held === undefined) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
      await this.events.publish('redemption.resend-email', {
        ...actor,
        success: false,
        resource: 'redemption',
        resourceId: id,
        details: { reason: held ? 'held-for-review' : 'awaiting-license' },
      });
      throw new ConflictException(
        held ? REDEMPTION_ADMIN_MESSAGES.heldForReview : REDEMPTION_ADMIN_MESSAGES.awaitingLicense,
      );
    }
    this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    await this.events.publish('redemption.resend-email', {
      ...actor,
      success: true,
      resource: 'redemption',
      resourceId: id,
      voucherCode: requeued.code,
    });
    return { success: true, message: 'Email queued for sending' };
  }

  /**
   * docs/product.md §14.2 manual assignment: the key is stored as `MANUAL_<key>` (one row per product and key,
   * extended by one activation for each redemption it is given to), assigned, and the e-mail follows.
   * A redemption that already had a key gets the new one as its current key; the old assignment stays
   * recorded, so that key is never handed to anyone else.
   */
  async assignLicense(id: string, dto: AssignLicenseDto, actor: RequestActor): Promise<AdminRedemptionView> {
    const stored = MANUAL_KEY_PREFIX + dto.licenseKey;
    await this.database.transaction(async () => {
      const r = await this.redemptions.lockForAssignment(id);
      if (!r) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
      if (r.held) throw new ConflictException(REDEMPTION_ADMIN_MESSAGES.heldForReview);
      if (!r.isLicenseManaged) {
        throw new BadRequestException(
          isMacProduct(r.productName)
            ? REDEMPTION_ADMIN_MESSAGES.macProduct
            : REDEMPTION_ADMIN_MESSAGES.notLicenseManaged,
        );
      }
      const { keyId } = await this.licenses.assignManualKey(r.productId, stored, dto.downloadLink, id);
      await this.redemptions.markLicensed([id]);
      // The audit row commits with the assignment; consoles and webhooks hear of it after the commit.
      await this.events.publish('redemption.assign-license', {
        ...actor,
        success: true,
        resource: 'redemption',
        resourceId: id,
        details: { licenseKeyId: keyId, keyEnd: dto.licenseKey.slice(-5) },
        redemptionId: id,
        voucherCode: r.code,
      });
    });
    this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    return this.lists.findOne(id);
  }

  /**
   * One key and link for many redemptions (a volume licence). Redemptions that already have a key,
   * and those of products that are not licence-managed, are skipped. The key's row per product gets
   * maxActivations = the number of redemptions it was given to.
   */
  async bulkAssignLicense(dto: BulkAssignLicenseDto, actor: RequestActor): Promise<{ successCount: number }> {
    const stored = MANUAL_KEY_PREFIX + dto.licenseKey;
    const ids = [...new Set(dto.redemptionIds)];
    const assigned = await this.database.transaction(async () => {
      const targets = await this.redemptions.lockLicensableWithoutKey(ids);
      const byProduct = new Map<string, string[]>();
      for (const t of targets) byProduct.set(t.productId, [...(byProduct.get(t.productId) ?? []), t.id]);
      // One key row per product: the history ties each assignment to this row by its key (licenseKeyIds).
      const licenseKeyIds: string[] = [];
      for (const [productId, redemptionIds] of byProduct) {
        licenseKeyIds.push(
          (await this.licenses.assignVolumeKey(productId, stored, dto.downloadLink, redemptionIds)).keyId,
        );
      }
      const assignedIds = targets.map((t) => t.id);
      if (assignedIds.length) await this.redemptions.markLicensed(assignedIds);
      await this.events.publish('redemption.bulk-assign-license', {
        ...actor,
        success: true,
        resource: 'redemption',
        details: {
          requested: ids.length,
          assigned: assignedIds.length,
          keyEnd: dto.licenseKey.slice(-5),
          licenseKeyIds,
          redemptionIds: assignedIds,
        },
        assignedIds,
      });
      return assignedIds;
    });
    for (const id of assigned) this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    return { successCount: assigned.length };
  }

  /** The voucher code stays redeemed and the licence assignment stays (its redemption_id set null by the FK). */
  async remove(id: string, actor: RequestActor) {
    const row = await this.redemptions.delete(id);
    if (!row) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
    await this.events.publish('redemption.delete', {
      ...actor,
      success: true,
      resource: 'redemption',
      resourceId: id,
      details: { voucherCode: row.code },
      voucherCode: row.code,
    });
    return { success: true, message: 'Redemption deleted' };
  }

  async bulkRemove(redemptionIds: string[], actor: RequestActor): Promise<{ deletedCount: number }> {
    const deleted = await this.redemptions.deleteMany([...new Set(redemptionIds)]);
    await this.events.publish('redemption.bulk-delete', {
      ...actor,
      success: true,
      resource: 'redemption',
      details: { requested: redemptionIds.length, deleted: deleted.length, redemptionIds: deleted },
      deletedCount: deleted.length,
    });
    return { deletedCount: deleted.length };
  }

  /**
   * Fix Pending Emails: gives waiting (manual) redemptions a free pool key, then queues every pending
   * e-mail that no worker is sending. The e-mail job's claim makes a repeated run harmless.
   */
  async fixPendingEmails(actor: RequestActor): Promise<{ fixedCount: number; assignedCount: number }> {
    const { assignedIds: poolAssignedIds, productIds: poolProductIds } = await this.pool.assignWaiting();
    const pending = await this.redemptions.findUnclaimedPending();
    for (const id of pending) this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    const assignedCount = poolAssignedIds.length;
    await this.events.publish('emails.fix-pending', {
      ...actor,
      success: true,
      resource: 'redemption',
      details: { fixedCount: pending.length, assignedCount },
      poolAssignedIds,
      // Keys left these products' pools: the pool module checks their forecasts.
      poolProductIds,
      queuedCount: pending.length,
    });
    return { fixedCount: pending.length, assignedCount };
  }

  /**
   * Clean System (docs/product.md §15.3): every voucher code, customer, redemption and licence assignment, in one
   * transaction. Licence keys stay, with their activation counts: keys customers have seen stay used.
   */
  async cleanup(actor: RequestActor) {
    const clean = () =>
      this.database.transaction(async () => {
        const result = await this.redemptions.truncateAll();
        await this.events.publish('system.cleanup', { ...actor, success: true, resource: 'system', details: result });
        return result;
      });
    let deleted: Awaited<ReturnType<typeof clean>> | undefined;
    // truncateAll gives up a lock it could only get by deadlocking another statement (55P03): try again.
    for (let attempt = 1; !deleted; attempt++) {
      deleted = await clean().catch((err: { code?: string }) => {
        if (err.code !== LOCK_NOT_AVAILABLE || attempt >= CLEANUP_ATTEMPTS) throw err;
        return undefined;
      });
    }
    this.logger.warn(`System cleaned: ${JSON.stringify(deleted)}`);
    return { success: true, message: 'System cleaned successfully', deleted };
  }
}
