import { defineJob } from '../jobs/job';

/** The e-mail queue: order e-mails, pool alerts and sign-in links share its MAIL_CONCURRENCY SMTP connections. */
export const MAIL_QUEUE = 'mail';

/** Re-queues pending order e-mails whose job was lost. */
export const SWEEP_PENDING_MAIL = defineJob<object>('mail.sweep-order-emails', { formerNames: ['sweep-pending-mail'] });

/** The retry policy of every e-mail job (order e-mails, pool alerts, sign-in links): MAIL_ATTEMPTS, backoff doubling. */
export function mailJobPolicy(config: { mailAttempts: number; mailBackoffMs: number; mailConcurrency: number }) {
  return {
    queue: MAIL_QUEUE,
    attempts: config.mailAttempts,
    backoffMs: config.mailBackoffMs,
    concurrency: config.mailConcurrency,
    keepFailed: 1000,
  };
}
