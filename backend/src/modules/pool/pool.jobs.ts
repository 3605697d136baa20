import { defineJob } from '../jobs/job';

/** Payload `{alertId}`: one low-pool alert e-mail (a `pool_alerts` row), on the mail queue. */
export const SEND_POOL_ALERT = defineJob<{ alertId: string }>('pool.send-alert', { formerNames: ['send-pool-alert'] });

/** Payload `{productId}` (null: every licence-managed product): forecast and raise the low-pool alerts due. */
export const CHECK_POOL = defineJob<{ productId: string | null }>('pool.check', { formerNames: ['check-pool'] });

/** Re-queues pending pool alerts whose job was lost. */
export const SWEEP_POOL_ALERTS = defineJob<object>('pool.sweep-alerts', { formerNames: ['sweep-pool-alerts'] });
