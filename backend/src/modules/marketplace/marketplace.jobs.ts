import { defineJob } from '../jobs/job';

/** The marketplace reports' queue: a marketplace may take MARKETPLACE_TIMEOUT_MS to answer. */
export const MARKETPLACE_QUEUE = 'marketplace';

/** Payload `{reportId, attempt}`: one attempt of a report (the outbox row says what and where). */
export const SEND_MARKETPLACE_REPORT = defineJob<{ reportId: string; attempt: number }>('marketplace.send-report');

/** Re-queues pending reports whose job was lost (Redis emptied, a worker killed). */
export const SWEEP_MARKETPLACE_REPORTS = defineJob<object>('marketplace.sweep-reports');
