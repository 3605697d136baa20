import { defineJob } from '../jobs/job';

/**
 * The order e-mail's job, the redemption's outbox on the queue (docs/architecture.md "E-mail (outbox)"): queued by the
 * redemption's write paths and the mail module's relay and sweep, processed by the mail module (`RedemptionMailJob`).
 * Payload `{redemptionId}`: the worker reloads everything else from the database.
 */
export const REDEMPTION_MAIL = defineJob<{ redemptionId: string }>('mail.send-order-email', {
  formerNames: ['send-redemption-mail'],
});

/**
 * One live order e-mail job per redemption (`mail.send-order-email:<redemption>`): a second add while one waits is the
 * same job.
 */
export const redemptionMailJobId = ({ redemptionId }: { redemptionId: string }) => redemptionId;
