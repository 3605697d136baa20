import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Waiting for a locked key can end with that key full; try the next one a bounded number of times. */
const MAX_POOL_TRIES = 20;

/**
 * Hands out keys of the licence pool. Concurrency is settled by PostgreSQL: a key row is locked while
 * its activation count goes up, and a CHECK constraint keeps current_activations <= max_activations.
 */
@Injectable()
export class LicensePoolService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Assigns a free key of the redemption's product to a redemption that is waiting for one.
   * Unlike the redemption's own SKIP LOCKED attempt this waits for locked keys, so a volume key being
   * used by a concurrent redemption is still found when it has room left.
   * Returns false when the redemption is not waiting or no key has room.
   */
  async assignFromPool(redemptionId: string): Promise<boolean> {
    for (let i = 0; i < MAX_POOL_TRIES; i++) {
      const result = await this.dataSource.transaction(async (m) => {
        // Lock the redemption first: two fixers never assign two keys to one redemption.
        const [redemption] = await m.query(
          `SELECT id, product_id FROM redemptions WHERE id = $1 AND awaiting_license FOR UPDATE`,
          [redemptionId],
        );
        if (!redemption) return 'not-waiting' as const;
        const [key] = await m.query(
          `SELECT id, license_key, download_link FROM license_keys
            WHERE product_id = $1 AND is_active AND current_activations < max_activations
            ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
          [redemption.product_id],
        );
        if (!key) {
          const [{ free }] = await m.query(
            `SELECT EXISTS (SELECT 1 FROM license_keys WHERE product_id = $1 AND is_active
               AND current_activations < max_activations) AS free`,
            [redemption.product_id],
          );
          return free ? ('retry' as const) : ('none' as const);
        }
        await m.query(
          `UPDATE license_keys SET current_activations = current_activations + 1, updated_at = now() WHERE id = $1`,
          [key.id],
        );
        await m.query(`INSERT INTO license_assignments (license_key_id, redemption_id) VALUES ($1, $2)`, [
          key.id,
          redemptionId,
        ]);
        await m.query(`UPDATE redemptions SET awaiting_license = false WHERE id = $1`, [redemptionId]);
        return 'assigned' as const;
      });
      if (result !== 'retry') return result === 'assigned';
    }
    return false;
  }
}
