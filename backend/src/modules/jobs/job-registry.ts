import { Injectable } from '@nestjs/common';
import {
  checkJobName,
  JobDefinition,
  JobKey,
  JobPoll,
  JobRun,
  JobSchedule,
  MAINTENANCE_QUEUE,
  RegisteredJob,
} from './job';

/**
 * The jobs the features declared. A feature registers its jobs (and their schedules) from its module's providers on
 * init (`onModuleInit`); the runtimes read the registry when the application has booted, so every process that
 * boots the application module (API, `npm run worker`, the forked embedded worker) knows the same jobs.
 */
@Injectable()
export class JobRegistry {
  private readonly jobs = new Map<string, RegisteredJob>();
  /** Each job under its former names too (`defineJob`'s `formerNames`), for the jobs queued before a rename. */
  private readonly byName = new Map<string, RegisteredJob>();
  private readonly limits = new Map<string, number>();
  private readonly scheduled: JobSchedule[] = [];
  private readonly polled: JobPoll[] = [];

  register<P>(key: JobKey<P>, definition: JobDefinition<P>): void {
    const formerNames = key.formerNames ?? [];
    const names = [key.name, ...formerNames];
    for (const name of names) if (this.byName.has(name)) throw new Error(`Job ${name} is registered twice`);
    const { jobId } = definition;
    const job: RegisteredJob = {
      name: key.name,
      formerNames,
      queue: definition.queue ?? MAINTENANCE_QUEUE,
      attempts: definition.attempts ?? 1,
      backoffMs: definition.backoffMs ?? 0,
      concurrency: definition.concurrency ?? 1,
      keepFailed: definition.keepFailed ?? 100,
      jobId: jobId && ((payload) => `${key.name}:${jobId(payload as P)}`),
      handle: definition.handle as RegisteredJob['handle'],
    };
    this.jobs.set(key.name, job);
    for (const name of names) this.byName.set(name, job);
  }

  /** Runs a registered job with `payload` every `every` ms. */
  schedule<P>(key: JobKey<P>, every: number, payload: P & object): void {
    this.scheduled.push({ name: key.name, every, payload });
  }

  /** Runs `poll.run` in every process that runs jobs, `poll.every` ms after each run ended (`JobPoll`). */
  poll(poll: JobPoll): void {
    checkJobName(poll.name);
    this.polled.push(poll);
  }

  /** At most `concurrency` jobs of the queue at once, whatever its jobs declare. */
  limitQueue(queue: string, concurrency: number): void {
    this.limits.set(queue, concurrency);
  }

  /** The job of that name, or of one of its former names (a job queued before a rename). */
  get(name: string): RegisteredJob {
    const job = this.byName.get(name);
    if (!job) throw new Error(`No job ${name} is registered`);
    return job;
  }

  run(name: string, payload: unknown, run: JobRun): Promise<unknown> {
    return this.get(name).handle(payload, run);
  }

  queues(): string[] {
    return [...new Set([...this.jobs.values()].map((job) => job.queue))];
  }

  /** The queue's limit, or the sum of its jobs' concurrency (as Bull counts named handlers). */
  concurrency(queue: string): number {
    const limit = this.limits.get(queue);
    if (limit !== undefined) return limit;
    return [...this.jobs.values()].filter((job) => job.queue === queue).reduce((sum, job) => sum + job.concurrency, 0);
  }

  schedules(): readonly JobSchedule[] {
    return this.scheduled;
  }

  polls(): readonly JobPoll[] {
    return this.polled;
  }
}
