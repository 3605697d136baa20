import { defineJob } from '../jobs/job';

/**
 * The review's e-mails (docs/product.md §25.3, §25.4), queued here and sent by the mail module (`ReviewMailJob`):
 * the refusal to the customer (payload `{redemptionId}`, the worker reloads the rest), and the scheduled check that
 * alerts the admins once per case waiting past the two-hour promise.
 */
export const REVIEW_REFUSAL_MAIL = defineJob<{ redemptionId: string }>('mail.send-review-refusal');

/** Re-queues refusal e-mails whose job was lost. */
export const SWEEP_REVIEW_REFUSALS = defineJob<object>('mail.sweep-review-refusals');

export const REVIEW_ALERTS = defineJob<object>('mail.alert-held-reviews');

/** A held case waits this long before its one alert: the manual-processing page's promise, "within 2-3 hours". */
export const REVIEW_ALERT_AFTER_MS = 2 * 60 * 60 * 1000;
