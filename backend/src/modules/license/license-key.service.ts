import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DataSource, QueryFailedError } from 'typeorm';
import { cappedCount, estimateRows, exactCountLimit } from '../../database/list-counts';
import { likeContains, returnedRows } from '../../common/utils/sql';
import type { RequestActor } from '../../common/utils/request-actor';
import { AuditService } from '../audit/audit.service';
import { MANUAL_KEY_PREFIX } from './entities/license-key.entity';
import { CreateLicenseKeyDto, ListLicenseKeysQuery, UsageState } from './dto/license-key.dto';

export const LICENSE_KEY_MESSAGES = {
  notFound: 'License key not found',
  productNotFound: 'Product not found',
  productNotManaged: 'License keys can only be added to license-managed products',
  duplicate: 'This license key already exists for this product',
  assigned: (n: number) =>
    `This license key has been assigned to ${n} redemption(s) and cannot be deleted. Deactivate it instead.`,
} as const;

export interface LicenseKeyView {
  id: string;
  productId: string;
  productName: string;
  licenseKey: string;
  downloadLink: string;
  licenseType: string;
  maxActivations: number;
  currentActivations: number;
  isActive: boolean;
  usageStatus: UsageState;
  createdAt: Date;
  updatedAt: Date;
}

export interface LicenseKeySummary {
  totalKeys: number;
  active: number;
  available: number;
  partiallyUsed: number;
  fullyUsed: number;
}

/** SPEC §4 usage state, as SQL: 0 available, 1 partially used, 2 fully used (also the list's sort key). */
const USAGE_RANK = `CASE WHEN k.current_activations = 0 THEN 0
                         WHEN k.current_activations < k.max_activations THEN 1 ELSE 2 END`;
const USAGE_BY_NAME: Record<UsageState, number> = { available: 0, 'partially-used': 1, 'fully-used': 2 };
const USAGE_NAMES: UsageState[] = ['available', 'partially-used', 'fully-used'];

/** `MANUAL_` keys belong to single redemptions (DECISIONS §8): never listed, never counted. */
const NOT_MANUAL = `k.license_key NOT LIKE '${MANUAL_KEY_PREFIX}%'`;

const KEY_COLUMNS = `k.id, k.product_id, p.name AS product_name, k.license_key, k.download_link, k.license_type,
  k.max_activations, k.current_activations, k.is_active, k.created_at, k.updated_at, ${USAGE_RANK} AS usage_rank`;

@Injectable()
export class LicenseKeyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  licenseManagedProducts() {
    return this.dataSource
      .query(`SELECT id, name, status, download_link FROM products WHERE is_license_managed ORDER BY name`)
      .then((rows: Array<{ id: string; name: string; status: string; download_link: string }>) =>
        rows.map((r) => ({
          id: r.id,
          name: r.name,
          status: r.status,
          downloadLink: r.download_link,
          isLicenseManaged: true,
        })),
      );
  }

  /**
   * Keys in SPEC §4 order: available, then partially used, then fully used, newest first within each.
   * The summary counts the product filter's keys, whatever the search or state filter.
   */
  async list(query: ListLicenseKeysQuery) {
    const page = query.page ?? 1;
    const limit = query.limit ?? 100;
    const scope: string[] = [NOT_MANUAL];
    const scopeParams: unknown[] = [];
    if (query.productId) {
      scopeParams.push(query.productId);
      scope.push(`k.product_id = $${scopeParams.length}`);
    }
    const where = [...scope];
    const params = [...scopeParams];
    if (query.search) {
      params.push(likeContains(query.search));
      where.push(`k.license_key ILIKE $${params.length}`);
    }
    if (query.status) {
      params.push(USAGE_BY_NAME[query.status]);
      where.push(`${USAGE_RANK} = $${params.length}`);
    }
    const pageParams = [...params, limit + 1, (page - 1) * limit];
    const countSql = `SELECT 1 FROM license_keys k WHERE ${where.join(' AND ')}`;
    const estimate = await estimateRows(this.dataSource, countSql, params);
    // The order is held by idx_license_keys_list / idx_license_keys_product_list (migration 1763700005010);
    // one key more than the page tells hasNextPage exactly; the total is exact up to LIST_EXACT_COUNT_LIMIT, estimated beyond.
    const [found, counted, [summary]] = await Promise.all([
      this.dataSource.query(
        `SELECT ${KEY_COLUMNS} FROM license_keys k JOIN products p ON p.id = k.product_id
          WHERE ${where.join(' AND ')}
          ORDER BY ${USAGE_RANK}, k.created_at DESC, k.id DESC
          LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        pageParams,
      ),
      cappedCount(this.dataSource, countSql, params, estimate, exactCountLimit(query.search, this.config.listExactCountLimit)),
      this.dataSource.query(
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE k.is_active)::int AS active,
                count(*) FILTER (WHERE k.current_activations = 0)::int AS available,
                count(*) FILTER (WHERE k.current_activations > 0 AND k.current_activations < k.max_activations)::int AS partial,
                count(*) FILTER (WHERE k.current_activations >= k.max_activations)::int AS full
           FROM license_keys k WHERE ${scope.join(' AND ')}`,
        scopeParams,
      ),
    ]);
    const hasNextPage = found.length > limit;
    const rows = found.slice(0, limit);
    const seen = (page - 1) * limit + rows.length + (hasNextPage ? 1 : 0);
    const totalCount: number = counted.exact ? counted.count : Math.max(counted.count, seen);
    const totalPages = Math.ceil(totalCount / limit);
    return {
      licenseKeys: rows.map(toView),
      summary: {
        totalKeys: summary.total,
        active: summary.active,
        available: summary.available,
        partiallyUsed: summary.partial,
        fullyUsed: summary.full,
      } satisfies LicenseKeySummary,
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

  async create(dto: CreateLicenseKeyDto, actor: RequestActor): Promise<LicenseKeyView> {
    const maxActivations = dto.licenseType === 'volume' ? dto.maxActivations! : 1;
    let rows: Array<{ id: string }>;
    try {
      // The product check and the insert are one statement: no key is written for a missing or unmanaged product.
      rows = await this.dataSource.query(
        `INSERT INTO license_keys (product_id, license_key, download_link, license_type, max_activations)
         SELECT p.id, $2, $3, $4, $5 FROM products p WHERE p.id = $1 AND p.is_license_managed
         RETURNING id`,
        [dto.productId, dto.licenseKey, dto.downloadLink, dto.licenseType, maxActivations],
      );
    } catch (err) {
      if (isUniqueViolation(err, 'uq_license_keys_product_key')) {
        await this.audit.record({
          ...actor,
          action: 'license-key.create',
          success: false,
          resource: 'license_key',
          details: { productId: dto.productId, reason: 'duplicate' },
        });
        throw new ConflictException(LICENSE_KEY_MESSAGES.duplicate);
      }
      throw err;
    }
    if (!rows.length) {
      const [product] = await this.dataSource.query(`SELECT is_license_managed FROM products WHERE id = $1`, [
        dto.productId,
      ]);
      if (!product) throw new NotFoundException(LICENSE_KEY_MESSAGES.productNotFound);
      throw new BadRequestException(LICENSE_KEY_MESSAGES.productNotManaged);
    }
    const view = await this.findOne(rows[0].id);
    await this.audit.record({
      ...actor,
      action: 'license-key.create',
      success: true,
      resource: 'license_key',
      resourceId: view.id,
      // The key itself is a secret: the audit log keeps only its last characters.
      details: {
        productId: view.productId,
        keyEnd: view.licenseKey.slice(-5),
        licenseType: view.licenseType,
        maxActivations,
      },
    });
    return view;
  }

  async setActive(id: string, isActive: boolean, actor: RequestActor): Promise<LicenseKeyView> {
    const updated = returnedRows(
      await this.dataSource.query(
        `UPDATE license_keys k SET is_active = $2, updated_at = now() WHERE k.id = $1 AND ${NOT_MANUAL} RETURNING id`,
        [id, isActive],
      ),
    );
    if (!updated.length) throw new NotFoundException(LICENSE_KEY_MESSAGES.notFound);
    await this.audit.record({
      ...actor,
      action: isActive ? 'license-key.activate' : 'license-key.deactivate',
      success: true,
      resource: 'license_key',
      resourceId: id,
    });
    return this.findOne(id);
  }

  /**
   * Deletes a key nobody has received. The conditions sit in the DELETE itself: an assignment bumps
   * current_activations under the key's row lock, so a key assigned concurrently is never deleted.
   */
  async remove(id: string, actor: RequestActor): Promise<{ success: true; message: string }> {
    const rows = returnedRows(
      await this.dataSource.query(
        `DELETE FROM license_keys k
        WHERE k.id = $1 AND ${NOT_MANUAL} AND k.current_activations = 0
          AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.license_key_id = k.id)
        RETURNING k.id, k.product_id`,
        [id],
      ),
    );
    if (!rows.length) {
      const [key] = await this.dataSource.query(
        `SELECT k.current_activations, (SELECT count(*)::int FROM license_assignments a WHERE a.license_key_id = k.id) AS assigned
           FROM license_keys k WHERE k.id = $1 AND ${NOT_MANUAL}`,
        [id],
      );
      if (!key) throw new NotFoundException(LICENSE_KEY_MESSAGES.notFound);
      await this.audit.record({
        ...actor,
        action: 'license-key.delete',
        success: false,
        resource: 'license_key',
        resourceId: id,
        details: { reason: 'assigned', assignments: key.assigned },
      });
      throw new ConflictException(LICENSE_KEY_MESSAGES.assigned(Math.max(key.assigned, key.current_activations)));
    }
    await this.audit.record({
      ...actor,
      action: 'license-key.delete',
      success: true,
      resource: 'license_key',
      resourceId: id,
      details: { productId: rows[0].product_id },
    });
    return { success: true, message: 'License key deleted' };
  }

  async findOne(id: string): Promise<LicenseKeyView> {
    const [row] = await this.dataSource.query(
      `SELECT ${KEY_COLUMNS} FROM license_keys k JOIN products p ON p.id = k.product_id WHERE k.id = $1`,
      [id],
    );
    if (!row) throw new NotFoundException(LICENSE_KEY_MESSAGES.notFound);
    return toView(row);
  }
}

function toView(row: Record<string, any>): LicenseKeyView {
  return {
    id: row.id,
    productId: row.product_id,
    productName: row.product_name,
    licenseKey: row.license_key,
    downloadLink: row.download_link,
    licenseType: row.license_type,
    maxActivations: row.max_activations,
    currentActivations: row.current_activations,
    isActive: row.is_active,
    usageStatus: USAGE_NAMES[row.usage_rank],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const driverError =
    err instanceof QueryFailedError ? (err.driverError as { code?: string; constraint?: string }) : null;
  return driverError?.code === '23505' && driverError.constraint === constraint;
}
