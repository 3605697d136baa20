/**
 * A job's typed handle: its name, and (in the type only) its payload. A feature declares it next to its handler
 * (`modules/<feature>/<what>.job.ts`) and enqueues through it: `queue.add(REDEMPTION_MAIL, { redemptionId })`.
 */
export interface JobKey<P> {
  readonly name: string;
  /** Names the job had before (`defineJob`'s `formerNames`): jobs queued under them still run. */
  readonly formerNames?: readonly string[];
  /** Never set: carries the payload's type. */
  readonly payload?: P;
}

/**
 * The one shape of a job's name, and of a poll's: `<module>.<verb>-<object>`, the module that runs it, then what it
 * does, in lower-case words joined by hyphens (`mail.send-order-email`, `pool.check`). A job's id is its name, a
 * colon and what the definition's `jobId` tells apart (`mail.send-order-email:<redemption>`; `JobRegistry`).
 */
export const JOB_NAME = /^[a-z]+(-[a-z]+)*\.[a-z]+(-[a-z]+)*$/;

export function checkJobName(name: string): string {
  if (!JOB_NAME.test(name)) throw new Error(`Job name ${name} is not <module>.<verb>-<object> (JOB_NAME)`);
  return name;
}

/**
 * `formerNames`: what the job was called before a rename. A job queued under one (Redis keeps queued jobs across a
 * deploy) is run by this job's handler, and a repeatable job left under one is removed when the schedule is declared.
 */
export function defineJob<P extends object>(name: string, { formerNames = [] as readonly string[] } = {}): JobKey<P> {
  return { name: checkJobName(name), formerNames };
}

/** Which attempt a handler runs: the last one may record a final failure. */
export interface JobRun {
  attempt: number;
  attempts: number;
}

/** Scheduled work and one-off jobs without a queue of their own share this one. */
export const MAINTENANCE_QUEUE = 'maintenance';

/** What a feature declares about its job; the runtimes (Bull, in-process, the forked worker) apply it alike. */
export interface JobDefinition<P> {
  /** Runs the job. A throw is a failed attempt: retried while attempts remain, then given up (logged). */
  handle(payload: P, run: JobRun): Promise<unknown>;
  /** The queue it runs on (Bull queue name; the depth figures are per queue). Default MAINTENANCE_QUEUE. */
  queue?: string;
  /** Attempts in all (default 1), `backoffMs` doubling between them (exponential, as Bull's). */
  attempts?: number;
  backoffMs?: number;
  /**
   * Jobs of this one its queue may run at once (default 1). A queue runs the sum of its jobs', unless its owner
   * limits it (`JobRegistry.limitQueue`), as the mail queue is to the SMTP connections.
   */
  concurrency?: number;
  /**
   * One live job per id (queued, running or waiting for a retry): adding it again meanwhile does nothing. What tells
   * the payloads apart (`({ alertId }) => alertId`); the registry puts the job's name before it (`<name>:<this>`).
   */
  jobId?: (payload: P) => string;
  /** Failed jobs Bull keeps for inspection (default 100). */
  keepFailed?: number;
}

/** A job as registered: the definition with its defaults applied. */
export interface RegisteredJob {
  name: string;
  formerNames: readonly string[];
  queue: string;
  attempts: number;
  backoffMs: number;
  concurrency: number;
  keepFailed: number;
  /** The whole id: `<name>:<the definition's jobId>`. */
  jobId?: (payload: unknown) => string;
  handle(payload: unknown, run: JobRun): Promise<unknown>;
}

/**
 * Work every process that runs jobs does for itself, `every` ms after its previous run ended (never two at once), not
 * a job on a queue: reading an outbox for rows that need a job, so that their writers queue nothing
 * (`JobRegistry.poll`). Each such process runs its own; what they add twice is one job (`jobId`).
 */
export interface JobPoll {
  name: string;
  every: number;
  run(): Promise<unknown>;
}

/** Repeating work: every `every` ms (Bull repeatable job; in-process, also once at start). */
export interface JobSchedule {
  name: string;
  every: number;
  payload: object;
}
