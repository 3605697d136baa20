export const QUEUE = {
  MAIL: 'mail',
  MAINTENANCE: 'maintenance',
  WEBHOOK: 'webhook',
} as const;

export const JOB = {
  /** Payload `{redemptionId}`: the worker reloads everything else from the database. */
  SEND_REDEMPTION_MAIL: 'send-redemption-mail',
  /** Payload `{deliveryId}`: one attempt of a webhook delivery (the row says what and where). */
  DELIVER_WEBHOOK: 'deliver-webhook',
  /** Re-queues pending webhook deliveries whose job was lost. */
  SWEEP_WEBHOOKS: 'sweep-webhooks',
  /** Payload `{alertId}`: one low-pool alert e-mail (a `pool_alerts` row). */
  SEND_POOL_ALERT: 'send-pool-alert',
  /** Payload `{productId}` (null: every licence-managed product): forecast and raise the low-pool alerts due. */
  CHECK_POOL: 'check-pool',
  /** Re-queues pending e-mails (order e-mails and pool alerts) whose job was lost. */
  SWEEP_PENDING_MAIL: 'sweep-pending-mail',
  /** Daily: deletes audit rows, e-mail logs and redemptions past their retention period (docs/product.md §1.5). */
  RETENTION_CLEANUP: 'retention-cleanup',
} as const;

export type JobName = (typeof JOB)[keyof typeof JOB];
