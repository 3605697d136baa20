import type { Queue } from 'bull';
import { BullJobQueue } from '../../backend/src/modules/jobs/bull-job-queue';
import { JobQueue } from '../../backend/src/modules/jobs/job-queue';
import { MAIL_QUEUE } from '../../backend/src/modules/mail/mail.jobs';
import { RedemptionMailJob } from '../../backend/src/modules/mail/redemption-mail.job';
import { TestApp } from './app';
import { eventually } from './redemptions';

/** The app's Bull queue (only when it runs with REDIS_URL). */
export function bullQueue(t: TestApp, name: string): Queue {
  return (t.app.get(JobQueue) as BullJobQueue).queue(name);
}

/**
 * Watches the app's job handlers (e-mail sends and pending-mail sweeps), so that a test asserting that nothing
 * more happens ("sent once", "no e-mail yet") waits for the jobs that could make it happen (every job finished,
 * the sweep run again) instead of sleeping past the sweep interval. Install it before the work it watches;
 * `jest.restoreAllMocks()` removes it.
 */
export function watchJobs(t: TestApp) {
  const handlers = t.app.get(RedemptionMailJob);
  let running = 0;
  /** Start times of the sweeps that have completed. */
  const sweeps: number[] = [];
  const send = handlers.send.bind(handlers);
  const sweep = handlers.sweep.bind(handlers);
  jest.spyOn(handlers, 'send').mockImplementation(async (...args) => {
    running++;
    try {
      return await send(...args);
    } finally {
      running--;
    }
  });
  jest.spyOn(handlers, 'sweep').mockImplementation(async () => {
    const started = Date.now();
    running++;
    try {
      return await sweep();
    } finally {
      running--;
      sweeps.push(started);
    }
  });

  const queue = t.app.get(JobQueue);

  return {
    /**
     * Resolves once `count` sweeps that started at or after `since` (default: now) have completed, and no e-mail
     * job is running or waiting: whatever those jobs and sweeps would have sent has been sent.
     */
    async settled({
      since = Date.now(),
      count = 1,
      timeoutMs = 30_000,
    }: { since?: number; count?: number; timeoutMs?: number } = {}) {
      await eventually(
        async () =>
          sweeps.filter((started) => started >= since).length >= count &&
          running === 0 &&
          (await queue.pending(MAIL_QUEUE)) === 0,
        timeoutMs,
        `${count} sweep(s) since ${new Date(since).toISOString()} and no e-mail job left`,
      );
    },
  };
}
