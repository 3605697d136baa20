import { JobKey } from './job';

export interface AddOptions {
  /** Run it no earlier than this many ms from now. */
  delayMs?: number;
}

/**
 * Where work is handed to the job handlers: Bull on Redis when REDIS_URL is set, a forked worker process or the API
 * process itself otherwise. Callers never wait on it and it never throws: a job that cannot be queued is found again
 * by its owner's sweep, because the database row is the source of truth.
 */
export abstract class JobQueue {
  abstract add<P>(job: JobKey<P>, payload: P, options?: AddOptions): void;

  /** Jobs of the queue queued, running or waiting for a retry (the queue's depth). */
  abstract pending(queue: string): Promise<number>;
}
