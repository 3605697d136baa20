import { defineJob } from '../jobs/job';

/** Payload `{linkId}`: one licence-centre sign-in link e-mail (a `customer_access_links` row), on the mail queue. */
export const SEND_ACCESS_LINK = defineJob<{ linkId: string }>('customer-centre.send-access-link', {
  formerNames: ['send-customer-link'],
});

/** Re-queues pending sign-in links whose job was lost. */
export const SWEEP_ACCESS_LINKS = defineJob<object>('customer-centre.sweep-access-links', {
  formerNames: ['sweep-customer-links'],
});
