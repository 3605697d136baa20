import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook circuit breaker (docs/product.md §20.4): an endpoint counts its consecutive failed
 * attempts since its last success, and is paused (`paused_at`) once they are too many for too long.
 */
export class WebhookCircuitBreaker1763832000100 implements MigrationInterface {
  name = 'WebhookCircuitBreaker1763832000100';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints
      ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
      ADD COLUMN failing_since timestamptz,
      ADD COLUMN paused_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_endpoints DROP COLUMN paused_at, DROP COLUMN failing_since, DROP COLUMN consecutive_failures`,
    );
  }
}
