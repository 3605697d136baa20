import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { openStoredKey } from './license.repository';

export interface RedemptionAssignment {
  assignedAt: Date;
  /** The key's row: a manual assignment's audit row names it (`details.licenseKeyId`, bulk `licenseKeyIds`). */
  licenseKeyId: string;
  isManual: boolean;
  /** The stored key, opened (`MANUAL_` prefix included). */
  licenseKey: string | null;
}

/** Reads of the pool for the forecast, and of one redemption's assignments for its history. */
@Injectable()
export class LicenseStockRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * Activations a redemption could still take, per product (all, or those given): the counters' room
   * (license_key_counts, migration 1763820000300: Σ max − current over the active pool keys), a few rows a product
   * whatever the pool's size. Products without a free key are absent.
   */
  async availablePerProduct(productIds?: string[]): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = await this.database.manager.query(
      `SELECT product_id, sum(room)::int AS n FROM license_key_counts
        ${productIds ? 'WHERE product_id = ANY($1::uuid[])' : ''}
        GROUP BY product_id HAVING sum(room) > 0`,
      productIds ? [productIds] : [],
    );
    return new Map(rows.map((r) => [r.product_id, r.n]));
  }

  /** The keys given to one redemption, oldest first (idx_license_assignments_redemption). */
  async assignmentsOf(redemptionId: string): Promise<RedemptionAssignment[]> {
    const rows: Array<Record<string, any>> = await this.database.manager.query(
      `SELECT a.assigned_at, a.license_key_id, k.is_manual, k.license_key, k.key_ciphertext
         FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
        WHERE a.redemption_id = $1 ORDER BY a.assigned_at, a.id`,
      [redemptionId],
    );
    return rows.map((r) => ({
      assignedAt: r.assigned_at,
      licenseKeyId: r.license_key_id,
      isManual: r.is_manual,
      licenseKey: openStoredKey(this.cipher, { license_key: r.license_key, key_ciphertext: r.key_ciphertext }),
    }));
  }
}
