export const QUEUE = {
  MAIL: 'mail',
  MAINTENANCE: 'maintenance',
} as const;

export const JOB = {
  /** Payload `{redemptionId}`: the worker reloads everything else from the database. */
  SEND_REDEMPTION_MAIL: 'send-redemption-mail',
  /** Re-queues pending e-mails whose job was lost. */
  SWEEP_PENDING_MAIL: 'sweep-pending-mail',
  /** Daily: deletes audit rows, e-mail logs and redemptions past their retention period (SPEC §1). */
  RETENTION_CLEANUP: 'retention-cleanup',
} as const;

export type JobName = (typeof JOB)[keyof typeof JOB];
