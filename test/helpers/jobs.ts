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
 * Watches the app's job handlers (e-mail sends, the relay of new e-mails and pending-mail sweeps), so that a test
 * asserting that nothing more happens ("sent once", "no e-mail yet") waits for the jobs that could make it happen
 * (every job finished, the relay and the sweep run again) instead of sleeping past their intervals. Install it before
 * the work it watches; `jest.restoreAllMocks()` removes it.
 */
export function watchJobs(t: TestApp) {
  const handlers = t.app.get(RedemptionMailJob);
  let running = 0;
  /** Runs `run` counted as running; when it ends, its start time goes to `done`. */
  const counted = async <T>(run: () => Promise<T>, done?: number[]): Promise<T> => {
    const started = Date.now();
    running++;
    try {
      return await run();
    } finally {
      running--;
      done?.push(started);
    }
  };
  /** Start times of the sweeps and of the relay's reads that have completed. */
  const sweeps: number[] = [];
  const relays: number[] = [];
  const send = handlers.send.bind(handlers);
  const sweep = handlers.sweep.bind(handlers);
  const relayNew = handlers.relayNew.bind(handlers);
  jest.spyOn(handlers, 'send').mockImplementation((...args) => counted(() => send(...args)));
  jest.spyOn(handlers, 'sweep').mockImplementation(() => counted(sweep, sweeps));
  jest.spyOn(handlers, 'relayNew').mockImplementation(() => counted(relayNew, relays));

  const queue = t.app.get(JobQueue);

  return {
    /**
     * Resolves once `count` sweeps, and a read of the relay, that started at or after `since` (default: now) have
     * completed, and no e-mail job is running or waiting: whatever those jobs, reads and sweeps would have sent has
     * been sent.
     */
    async settled({
      since = Date.now(),
      count = 1,
      timeoutMs = 30_000,
    }: { since?: number; count?: number; timeoutMs?: number } = {}) {
      await eventually(
        async () =>
          sweeps.filter((started) => started >= since).length >= count &&
          relays.some((started) => started >= since) &&
          running === 0 &&
          (await queue.pending(MAIL_QUEUE)) === 0,
        timeoutMs,
        `${count} sweep(s) and a relay read since ${new Date(since).toISOString()} and no e-mail job left`,
      );
    },
  };
}
