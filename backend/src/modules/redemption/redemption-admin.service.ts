import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DataSource, EntityManager } from 'typeorm';
import { cappedCount, estimateRows, walkedCount, exactCountLimit } from '../../database/list-counts';
import { likeContains, returnedRows } from '../../common/utils/sql';
import type { RequestActor } from '../../common/utils/request-actor';
import { AuditService } from '../audit/audit.service';
import { JobQueue } from '../jobs/job-queue';
import { MANUAL_KEY_PREFIX } from '../license/entities/license-key.entity';
import { LicensePoolService } from '../license/license-pool.service';
import { RealtimeService } from '../realtime/realtime.service';
import { AssignLicenseDto, BulkAssignLicenseDto, ListRedemptionsQuery } from './dto/redemption-admin.dto';

export const REDEMPTION_ADMIN_MESSAGES = {
  notFound: 'Redemption not found',
  macProduct: 'Mac products are activated automatically and take no license key.',
  notLicenseManaged: 'This product is not license-managed: its key comes from the product settings.',
  awaitingLicense: 'This redemption has no license key yet. Assign one first; the e-mail is sent with it.',
} as const;

/** SPEC §9: a product name containing "mac" (any case) is a Mac product. */
export function isMacProduct(name: string): boolean {
  return /mac/i.test(name);
}

export interface AdminRedemptionView {
  id: string;
  voucherCodeId: string;
  customerId: string;
  productId: string;
  voucherCode: { id: string; code: string };
  customer: {
    id: string;
    firstName: string;
    lastName: string;
    email: string;
    phone: string | null;
    country: string | null;
    zipCode: string | null;
  };
  product: { id: string; name: string };
  emailStatus: string;
  isManualProcessing: boolean;
  redeemedAt: Date;
  exported: boolean;
  exportedAt: Date | null;
  /** The latest assignment; a manual key is exposed as stored (`MANUAL_…`), the client strips the prefix. */
  assignedLicenseKey: { licenseKey: string; downloadLink: string } | null;
}

/** Columns of the admin view; `r` is a redemptions row (or a page of them). No N+1: one joined query per page. */
const VIEW_SQL = (source: string) => `
SELECT r.id, r.voucher_code_id, r.customer_id, r.product_id, r.email_status, r.awaiting_license,
       r.redeemed_at, r.exported, r.exported_at,
       v.code, c.first_name, c.last_name, c.email, c.phone, c.country, c.zip_code,
       p.name AS product_name, lk.license_key, lk.download_link
  FROM ${source} r
  JOIN voucher_codes v ON v.id = r.voucher_code_id
  JOIN customers c ON c.id = r.customer_id
  JOIN products p ON p.id = r.product_id
  LEFT JOIN LATERAL (
    SELECT k.license_key, k.download_link FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
     WHERE a.redemption_id = r.id ORDER BY a.assigned_at DESC, a.id DESC LIMIT 1
  ) lk ON true`;

/** Both list indexes are (exported, [email_status,] redeemed_at DESC, id): this order reads them directly. */
const LIST_ORDER = 'r.redeemed_at DESC, r.id';

/**
 * A search first walks this many of the list's newest rows (the more when PostgreSQL expects more than
 * SEARCH_BROAD matches); with too few matches there, the trigram indexes answer.
 */
const SEARCH_WALK_ROWS = { narrow: 1000, broad: 5000 };
const SEARCH_BROAD = 2000;

@Injectable()
export class RedemptionAdminService {
  private readonly logger = new Logger(RedemptionAdminService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly jobs: JobQueue,
    private readonly pool: LicensePoolService,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * SPEC §3 paginated redemptions, fast at a million rows (docs/benchmarks.md, "lists"):
   * - The page reads ids from the list index first (index-only, so a deep OFFSET skips index entries, not
   *   table rows), then joins the 50 rows it shows. One row more than the page tells `hasNextPage` exactly.
   * - `totalCount` is exact up to LIST_EXACT_COUNT_LIMIT matches; beyond that it is PostgreSQL's estimate
   *   (`totalCountExact: false`): counting 700,000 rows exactly costs more than the whole page.
   * - A search first walks the newest SEARCH_WALK_ROWS rows of the list in order and keeps the matches:
   *   a broad search finds its page there (a few thousand rows read) instead of collecting every match
   *   through the trigram indexes and sorting them; with too few matches there, the indexes answer.
   */
  async list(query: ListRedemptionsQuery) {
    const page = query.page ?? 1;
    const limit = query.limit ?? 50;
    const offset = (page - 1) * limit;
    const params: unknown[] = [query.showExported ?? false];
    const where = ['r.exported = $1'];
    if (query.emailStatus) {
      params.push(query.emailStatus);
      where.push(`r.email_status = $${params.length}`);
    }
    const base = where.join(' AND ');
    let filter = base;
    let walkFilter: string | undefined;
    if (query.search) {
      params.push(likeContains(query.search));
      const p = `$${params.length}`;
      // Two index-driven branches (trigram indexes on code, e-mail and full name) instead of one OR across
      // joined tables, which PostgreSQL could only answer by reading every redemption.
      filter = `${base} AND r.id IN (
        SELECT r2.id FROM voucher_codes v2 JOIN redemptions r2 ON r2.voucher_code_id = v2.id WHERE v2.code ILIKE ${p}
        UNION
        SELECT r3.id FROM customers c3 JOIN redemptions r3 ON r3.customer_id = c3.id
         WHERE c3.email ILIKE ${p} OR (c3.first_name || ' ' || c3.last_name) ILIKE ${p})`;
      // The same test on joined columns, for walking the list in order (row by row, no match set built).
      walkFilter = `(v.code ILIKE ${p} OR c.email ILIKE ${p} OR (c.first_name || ' ' || c.last_name) ILIKE ${p})`;
    }
    const n = params.length;
    const estimate = await estimateRows(this.dataSource, `SELECT 1 FROM redemptions r WHERE ${filter}`, params);

    const walkRows = estimate > SEARCH_BROAD ? SEARCH_WALK_ROWS.broad : SEARCH_WALK_ROWS.narrow;
    const windowSql = (rows: number) => `SELECT r.id, r.voucher_code_id, r.customer_id, r.redeemed_at FROM redemptions r
                        WHERE ${base} ORDER BY ${LIST_ORDER} LIMIT ${rows}`;
    // Row by row (OFFSET 0 keeps PostgreSQL from turning the lookups into hash joins over whole tables).
    const walkSql = (rows: number, test: string) => `SELECT w.id FROM (${windowSql(rows)}) w
           CROSS JOIN LATERAL (SELECT c.email, c.first_name, c.last_name FROM customers c
                                WHERE c.id = w.customer_id OFFSET 0) c
           CROSS JOIN LATERAL (SELECT v.code FROM voucher_codes v WHERE v.id = w.voucher_code_id OFFSET 0) v
          WHERE ${test}`;
    let ids: string[] | undefined;
    let walked = false;
    if (walkFilter && offset + limit < walkRows) {
      // First the newest SEARCH_WALK_ROWS rows of the list, in order, filtered row by row: enough for a page
      // when the search is broad, a few milliseconds lost when it is not.
      const rows: Array<{ id: string }> = await this.dataSource.query(
        `${walkSql(walkRows, walkFilter)} ORDER BY w.redeemed_at DESC, w.id LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit + 1, offset],
      );
      // Enough matches within the walk; otherwise they are sparse after all and the indexes answer below.
      if (rows.length > limit) {
        ids = rows.map((r) => r.id);
        walked = true;
      }
    }
    if (!ids) {
      const rows: Array<{ id: string }> = await this.dataSource.query(
        `SELECT r.id FROM redemptions r WHERE ${filter} ORDER BY ${LIST_ORDER} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit + 1, offset],
      );
      ids = rows.map((r) => r.id);
    }
    const hasNextPage = ids.length > limit;
    ids = ids.slice(0, limit);

    const [rows, counted] = await Promise.all([
      ids.length
        ? this.dataSource.query(`${VIEW_SQL('redemptions')} WHERE r.id = ANY($1::uuid[]) ORDER BY ${LIST_ORDER}`, [ids])
        : Promise.resolve([]),
      // A walked search is counted within the newest rows (a sample, unless they are the whole list): counting
      // it through the indexes would collect every match.
      walked && walkFilter
        ? estimateRows(this.dataSource, `SELECT 1 FROM redemptions r WHERE ${base}`, params.slice(0, -1)).then(
            (listEstimate) =>
              walkedCount(
                this.dataSource,
                windowSql(SEARCH_WALK_ROWS.narrow),
                walkSql(SEARCH_WALK_ROWS.narrow, walkFilter),
                params.slice(0, -1),
                params.slice(-1),
                SEARCH_WALK_ROWS.narrow,
                listEstimate,
                exactCountLimit(query.search, this.config.listExactCountLimit),
              ),
          )
        : cappedCount(this.dataSource, `SELECT 1 FROM redemptions r WHERE ${filter}`, params, estimate, exactCountLimit(query.search, this.config.listExactCountLimit)),
    ]);
    // An estimate never contradicts what this page has seen.
    const totalCount = counted.exact ? counted.count : Math.max(counted.count, offset + ids.length + (hasNextPage ? 1 : 0));
    const totalPages = Math.ceil(totalCount / limit);
    return {
      redemptions: rows.map(toView),
      pagination: {
        currentPage: page,
        limit,
        totalCount,
        totalPages,
        hasPreviousPage: page > 1,
        hasNextPage,
        totalCountExact: counted.exact,
      },
    };
  }

  async findOne(id: string, manager: EntityManager = this.dataSource.manager): Promise<AdminRedemptionView> {
    const [row] = await manager.query(`${VIEW_SQL('redemptions')} WHERE r.id = $1`, [id]);
    if (!row) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
    return toView(row);
  }

  /** Sends the order e-mail again: the status goes back to pending, any stale claim is cleared, a job is queued. */
  async resendEmail(id: string, actor: RequestActor) {
    const rows = returnedRows<{ code: string }>(
      await this.dataSource.query(
        `UPDATE redemptions r SET email_status = 'pending', email_locked_until = NULL
          FROM voucher_codes v
         WHERE r.id = $1 AND NOT r.awaiting_license AND v.id = r.voucher_code_id
         RETURNING v.code`,
        [id],
      ),
    );
    if (!rows.length) {
      const [row] = await this.dataSource.query(`SELECT awaiting_license FROM redemptions WHERE id = $1`, [id]);
      if (!row) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
      await this.audit.record({
        ...actor,
        action: 'redemption.resend-email',
        success: false,
        resource: 'redemption',
        resourceId: id,
        details: { reason: 'awaiting-license' },
      });
      throw new ConflictException(REDEMPTION_ADMIN_MESSAGES.awaitingLicense);
    }
    this.jobs.enqueueRedemptionMail(id);
    await this.audit.record({
      ...actor,
      action: 'redemption.resend-email',
      success: true,
      resource: 'redemption',
      resourceId: id,
    });
    this.realtime.emit('emailResend', `E-mail for voucher ${rows[0].code} queued for sending`);
    return { success: true, message: 'Email queued for sending' };
  }

  /**
   * DECISIONS §8 manual assignment: the key is stored as `MANUAL_<key>` (one row per product and key,
   * extended by one activation for each redemption it is given to), assigned, and the e-mail follows.
   * A redemption that already had a key gets the new one as its current key; the old assignment stays
   * recorded, so that key is never handed to anyone else.
   */
  async assignLicense(id: string, dto: AssignLicenseDto, actor: RequestActor): Promise<AdminRedemptionView> {
    const stored = MANUAL_KEY_PREFIX + dto.licenseKey;
    const code = await this.dataSource.transaction(async (m) => {
      const [r] = await m.query(
        `SELECT r.id, r.product_id, p.name, p.is_license_managed, v.code
           FROM redemptions r JOIN products p ON p.id = r.product_id JOIN voucher_codes v ON v.id = r.voucher_code_id
          WHERE r.id = $1 FOR UPDATE OF r`,
        [id],
      );
      if (!r) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
      if (!r.is_license_managed) {
        throw new BadRequestException(
          isMacProduct(r.name) ? REDEMPTION_ADMIN_MESSAGES.macProduct : REDEMPTION_ADMIN_MESSAGES.notLicenseManaged,
        );
      }
      const [key] = await m.query(
        `INSERT INTO license_keys (product_id, license_key, download_link, license_type, max_activations, current_activations)
         VALUES ($1, $2, $3, 'single-user', 1, 0)
         ON CONFLICT ON CONSTRAINT uq_license_keys_product_key
         DO UPDATE SET download_link = EXCLUDED.download_link, updated_at = now()
         RETURNING id`,
        [r.product_id, stored, dto.downloadLink],
      );
      // The upsert holds the key's row lock; the activation and its assignment go together.
      const bumped = returnedRows(
        await m.query(
          `UPDATE license_keys
              SET current_activations = current_activations + 1,
                  max_activations = greatest(max_activations, current_activations + 1),
                  license_type = CASE WHEN greatest(max_activations, current_activations + 1) > 1 THEN 'volume' ELSE license_type END,
                  updated_at = now()
            WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM license_assignments WHERE license_key_id = $1 AND redemption_id = $2)
            RETURNING id`,
          [key.id, id],
        ),
      );
      if (bumped.length) {
        await m.query(`INSERT INTO license_assignments (license_key_id, redemption_id) VALUES ($1, $2)`, [key.id, id]);
      } else {
        // The same key again (a corrected link): make it the current one without a second activation.
        await m.query(
          `UPDATE license_assignments SET assigned_at = now() WHERE license_key_id = $1 AND redemption_id = $2`,
          [key.id, id],
        );
      }
      await markLicensed(m, [id]);
      await this.audit.record(
        {
          ...actor,
          action: 'redemption.assign-license',
          success: true,
          resource: 'redemption',
          resourceId: id,
          details: { licenseKeyId: key.id, keyEnd: dto.licenseKey.slice(-5) },
        },
        m,
      );
      return r.code as string;
    });
    this.jobs.enqueueRedemptionMail(id);
    this.realtime.emit('licenseAssignment', `License assigned to voucher ${code}`);
    return this.findOne(id);
  }

  /**
   * One key and link for many redemptions (a volume licence). Redemptions that already have a key,
   * and those of products that are not licence-managed, are skipped. The key's row per product gets
   * maxActivations = the number of redemptions it was given to.
   */
  async bulkAssignLicense(dto: BulkAssignLicenseDto, actor: RequestActor): Promise<{ successCount: number }> {
    const stored = MANUAL_KEY_PREFIX + dto.licenseKey;
    const ids = [...new Set(dto.redemptionIds)];
    const assigned = await this.dataSource.transaction(async (m) => {
      // Lock first (in a fixed order: no deadlock between overlapping bulk requests), then decide with a
      // fresh statement, which sees every assignment committed while this one waited for the locks.
      await m.query(`SELECT id FROM redemptions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
      const targets: Array<{ id: string; product_id: string }> = await m.query(
        `SELECT r.id, r.product_id FROM redemptions r JOIN products p ON p.id = r.product_id
          WHERE r.id = ANY($1::uuid[]) AND p.is_license_managed
            AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.redemption_id = r.id)
          ORDER BY r.product_id, r.id`,
        [ids],
      );
      const byProduct = new Map<string, string[]>();
      for (const t of targets) byProduct.set(t.product_id, [...(byProduct.get(t.product_id) ?? []), t.id]);
      for (const [productId, redemptionIds] of byProduct) {
        const n = redemptionIds.length;
        const [key] = await m.query(
          `INSERT INTO license_keys (product_id, license_key, download_link, license_type, max_activations, current_activations)
           VALUES ($1, $2, $3, CASE WHEN $4::int > 1 THEN 'volume' ELSE 'single-user' END, $4, $4)
           ON CONFLICT ON CONSTRAINT uq_license_keys_product_key
           DO UPDATE SET max_activations = license_keys.max_activations + $4,
                         current_activations = license_keys.current_activations + $4,
                         license_type = 'volume', download_link = EXCLUDED.download_link, updated_at = now()
           RETURNING id`,
          [productId, stored, dto.downloadLink, n],
        );
        await m.query(`INSERT INTO license_assignments (license_key_id, redemption_id) SELECT $1, unnest($2::uuid[])`, [
          key.id,
          redemptionIds,
        ]);
      }
      const assignedIds = targets.map((t) => t.id);
      if (assignedIds.length) await markLicensed(m, assignedIds);
      await this.audit.record(
        {
          ...actor,
          action: 'redemption.bulk-assign-license',
          success: true,
          resource: 'redemption',
          details: {
            requested: ids.length,
            assigned: assignedIds.length,
            keyEnd: dto.licenseKey.slice(-5),
            redemptionIds: assignedIds,
          },
        },
        m,
      );
      return assignedIds;
    });
    for (const id of assigned) this.jobs.enqueueRedemptionMail(id);
    if (assigned.length)
      this.realtime.emit('licenseAssignment', `License assigned to ${assigned.length} redemption(s)`);
    return { successCount: assigned.length };
  }

  /** The voucher code stays redeemed and the licence assignment stays (its redemption_id set null by the FK). */
  async remove(id: string, actor: RequestActor) {
    const [row] = await this.dataSource.query(
      `WITH d AS (DELETE FROM redemptions WHERE id = $1 RETURNING id, voucher_code_id)
       SELECT d.id, v.code FROM d JOIN voucher_codes v ON v.id = d.voucher_code_id`,
      [id],
    );
    if (!row) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
    await this.audit.record({
      ...actor,
      action: 'redemption.delete',
      success: true,
      resource: 'redemption',
      resourceId: id,
      details: { voucherCode: row.code },
    });
    this.realtime.emit('redemptionDeleted', `Redemption of voucher ${row.code} deleted`);
    return { success: true, message: 'Redemption deleted' };
  }

  async bulkRemove(redemptionIds: string[], actor: RequestActor): Promise<{ deletedCount: number }> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `WITH d AS (DELETE FROM redemptions WHERE id = ANY($1::uuid[]) RETURNING id) SELECT id FROM d`,
      [[...new Set(redemptionIds)]],
    );
    await this.audit.record({
      ...actor,
      action: 'redemption.bulk-delete',
      success: true,
      resource: 'redemption',
      details: { requested: redemptionIds.length, deleted: rows.length, redemptionIds: rows.map((r) => r.id) },
    });
    if (rows.length) this.realtime.emit('redemptionDeleted', `${rows.length} redemption(s) deleted`);
    return { deletedCount: rows.length };
  }

  /**
   * Fix Pending Emails: gives waiting (manual) redemptions a free pool key, then queues every pending
   * e-mail that no worker is sending. The e-mail job's claim makes a repeated run harmless.
   */
  async fixPendingEmails(actor: RequestActor): Promise<{ fixedCount: number; assignedCount: number }> {
    const waiting: Array<{ id: string; product_id: string }> = await this.dataSource.query(
      `SELECT r.id, r.product_id FROM redemptions r
        WHERE r.awaiting_license AND EXISTS (
          SELECT 1 FROM license_keys k WHERE k.product_id = r.product_id AND k.is_active AND k.current_activations < k.max_activations)
        ORDER BY r.redeemed_at, r.id`,
    );
    let assignedCount = 0;
    const exhausted = new Set<string>();
    for (const w of waiting) {
      if (exhausted.has(w.product_id)) continue;
      if (await this.pool.assignFromPool(w.id)) {
        assignedCount++;
        continue;
      }
      const [{ free }] = await this.dataSource.query(
        `SELECT EXISTS (SELECT 1 FROM license_keys WHERE product_id = $1 AND is_active AND current_activations < max_activations) AS free`,
        [w.product_id],
      );
      if (!free) exhausted.add(w.product_id);
    }
    const pending: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM redemptions
        WHERE email_status = 'pending' AND NOT awaiting_license
          AND (email_locked_until IS NULL OR email_locked_until < now())
        ORDER BY redeemed_at`,
    );
    for (const p of pending) this.jobs.enqueueRedemptionMail(p.id);
    await this.audit.record({
      ...actor,
      action: 'emails.fix-pending',
      success: true,
      resource: 'redemption',
      details: { fixedCount: pending.length, assignedCount },
    });
    if (assignedCount)
      this.realtime.emit('licenseAssignment', `${assignedCount} waiting redemption(s) received a license`);
    if (pending.length) this.realtime.emit('emailResend', `${pending.length} pending e-mail(s) queued`);
    return { fixedCount: pending.length, assignedCount };
  }

  /**
   * Clean System (SPEC §5): every voucher code, customer, redemption and licence assignment, in one
   * transaction. Licence keys stay, with their activation counts: keys customers have seen stay used.
   */
  async cleanup(actor: RequestActor) {
    const deleted = await this.dataSource.transaction(async (m) => {
      // No redemption can slip in between the counts and the truncate.
      await m.query(
        `LOCK TABLE voucher_codes, customers, redemptions, license_assignments, success_tokens IN ACCESS EXCLUSIVE MODE`,
      );
      const [counts] = await m.query(
        `SELECT (SELECT count(*) FROM voucher_codes)::int AS voucher_codes,
                (SELECT count(*) FROM customers)::int AS customers,
                (SELECT count(*) FROM redemptions)::int AS redemptions,
                (SELECT count(*) FROM license_assignments)::int AS license_assignments`,
      );
      await m.query(`TRUNCATE license_assignments, success_tokens, redemptions, customers, voucher_codes`);
      const result = {
        voucherCodes: counts.voucher_codes as number,
        customers: counts.customers as number,
        redemptions: counts.redemptions as number,
        licenseAssignments: counts.license_assignments as number,
      };
      await this.audit.record(
        { ...actor, action: 'system.cleanup', success: true, resource: 'system', details: result },
        m,
      );
      return result;
    });
    this.logger.warn(`System cleaned: ${JSON.stringify(deleted)}`);
    this.realtime.emit('redemptionDeleted', 'System cleaned: all redemptions deleted');
    this.realtime.emit('voucherUpdate', 'System cleaned: all voucher codes deleted');
    return { success: true, message: 'System cleaned successfully', deleted };
  }
}

/** A licence now exists: the redemption leaves manual processing, its e-mail is due, the success page shows the key. */
async function markLicensed(m: EntityManager, ids: string[]) {
  await m.query(
    `UPDATE redemptions SET awaiting_license = false, email_status = 'pending', email_locked_until = NULL
      WHERE id = ANY($1::uuid[])`,
    [ids],
  );
}

function toView(row: Record<string, any>): AdminRedemptionView {
  return {
    id: row.id,
    voucherCodeId: row.voucher_code_id,
    customerId: row.customer_id,
    productId: row.product_id,
    voucherCode: { id: row.voucher_code_id, code: row.code },
    customer: {
      id: row.customer_id,
      firstName: row.first_name,
      lastName: row.last_name,
      email: row.email,
      phone: row.phone,
      country: row.country,
      zipCode: row.zip_code,
    },
    product: { id: row.product_id, name: row.product_name },
    emailStatus: row.email_status,
    isManualProcessing: row.awaiting_license,
    redeemedAt: row.redeemed_at,
    exported: row.exported,
    exportedAt: row.exported_at,
    assignedLicenseKey: row.license_key ? { licenseKey: row.license_key, downloadLink: row.download_link } : null,
  };
}
