import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { getSharedConfigToken } from '@nestjs/bull';
import Bull, { Job, JobOptions, Queue, QueueOptions } from 'bull';
import { JobKey, JobSchedule } from './job';
import { AddOptions, JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { PollRunner } from './poll-runner';
import { Batcher } from '../../common/utils/batcher';

/** A job as Bull's `addBulk` takes it. */
interface GatheredJob {
  name: string;
  data: unknown;
  opts: JobOptions;
}

/** True in a process that runs jobs (a worker, or an API with WORKERS_IN_API), false in one that only queues them. */
export const PROCESS_JOBS = Symbol('PROCESS_JOBS');

/**
 * The jobs on Redis (REDIS_URL): one Bull queue per queue name the registered jobs use, processed by one handler
 * per queue (`'*'`) that runs the registered job of each name with the queue's concurrency. Every queue is built
 * with the connection `@nestjs/bull`'s `BullModule.forRoot` declares (JobsModule): its `@Processor` classes would
 * fix each queue's name at compile time, while the queues here are the registered jobs' (docs/dependencies.md).
 */
@Injectable()
export class BullJobQueue extends JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('BullJobs');
  private readonly queues = new Map<string, Queue>();
  /**
   * Each queue's adds, gathered per turn of the event loop (`Batcher`): one command for one job, Bull's `addBulk` in
   * one MULTI for several, one write to the socket either way (issue 26: a job per redemption cost a Redis write per
   * request).
   */
  private readonly adders = new Map<string, Batcher<GatheredJob, void>>();
  /** Adds not yet answered by Redis (`pending` and shutdown wait for them). */
  private readonly adding = new Set<Promise<void>>();
  /** The polls (`JobPoll`), in a process that runs jobs. */
  private polls?: PollRunner;

  constructor(
    private readonly registry: JobRegistry,
    @Inject(PROCESS_JOBS) private readonly processJobs: boolean,
    @Inject(getSharedConfigToken()) private readonly connection: QueueOptions,
  ) {
    super();
  }

  /** The Bull queue of that name (created on first use). */
  queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Bull(name, this.connection);
      // Without a listener an 'error' event (Redis down) would crash the process.
      queue.on('error', (err) => this.logger.warn(`Queue ${name}: ${err.message}`));
      this.queues.set(name, queue);
    }
    return queue;
  }

  add<P>(key: JobKey<P>, payload: P, options: AddOptions = {}): void {
    const job = this.registry.get(key.name);
    const jobId = job.jobId?.(payload);
    const opts: JobOptions = {
      ...(jobId ? { jobId } : {}),
      ...(options.delayMs ? { delay: Math.max(0, options.delayMs) } : {}),
      ...(job.attempts > 1 ? { attempts: job.attempts, backoff: { type: 'exponential', delay: job.backoffMs } } : {}),
      removeOnComplete: true,
      removeOnFail: job.keepFailed,
    };
    const sent = this.adder(job.queue)
      .call({ name: key.name, data: payload, opts })
      .catch((err: Error) =>
        this.logger.warn(`Could not queue ${jobId ?? key.name} (its owner's sweep will): ${err.message}`),
      );
    this.adding.add(sent);
    void sent.then(() => this.adding.delete(sent));
  }

  private adder(name: string): Batcher<GatheredJob, void> {
    let adder = this.adders.get(name);
    if (!adder) {
      const queue = this.queue(name);
      adder = new Batcher<GatheredJob, void>(async (jobs) => {
        await (jobs.length === 1 ? queue.add(jobs[0].name, jobs[0].data, jobs[0].opts) : queue.addBulk(jobs));
        return jobs.map(() => undefined);
      });
      this.adders.set(name, adder);
    }
    return adder;
  }

  async pending(queue: string): Promise<number> {
    // What was added before counts (the depth a caller reads right after adding).
    await Promise.all([...this.adding]);
    const counts = await this.queue(queue).getJobCounts();
    return counts.waiting + counts.active + counts.delayed;
  }

  onApplicationBootstrap(): void {
    for (const name of this.registry.queues()) {
      const queue = this.queue(name);
      // Registered here, after every feature's registrations, with the queue's concurrency: one handler per queue
      // because Bull adds up the concurrency of named handlers (the mail queue's limit is its SMTP connections).
      if (this.processJobs) {
        queue
          .process('*', this.registry.concurrency(name), (job: Job) =>
            this.registry.run(job.name, job.data, { attempt: job.attemptsMade + 1, attempts: job.opts.attempts ?? 1 }),
          )
          // A failure to run is emitted as the queue's 'error' too, which is logged above.
          .catch(() => undefined);
      }
    }
    if (this.processJobs) {
      this.polls = new PollRunner(this.registry.polls());
      this.polls.start();
    }
    this.declareSchedules();
    // A Redis that comes back empty (restarted without persistence, a fresh replica after a failover) has
    // forgotten the repeatable jobs, and without the sweeps a pending e-mail whose job was lost with it would
    // never go out. Declaring them again on every reconnect is harmless: they are keyed by name and interval.
    const schedules = new Set(this.registry.schedules().map((s) => this.registry.get(s.name).queue));
    for (const name of schedules) {
      const queue = this.queue(name);
      let connected = queue.client.status === 'ready';
      queue.client.on('ready', () => {
        if (connected) this.declareSchedules(name);
        connected = true;
      });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // A poll under way may still add jobs.
    await this.polls?.stop();
    await Promise.all([...this.adding]);
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
  }

  private declareSchedules(queue?: string): void {
    for (const schedule of this.registry.schedules()) {
      if (queue && this.registry.get(schedule.name).queue !== queue) continue;
      this.declare(schedule).catch((err) => this.logger.warn(`Could not schedule ${schedule.name}: ${err.message}`));
    }
  }

  /**
   * Repeatable jobs are keyed by name and interval, so every instance may declare them; a schedule of the job left
   * by an earlier interval setting, or under one of its former names (a renamed job), is removed, or both would run.
   */
  private async declare(schedule: JobSchedule): Promise<void> {
    const job = this.registry.get(schedule.name);
    const queue = this.queue(job.queue);
    for (const repeatable of await queue.getRepeatableJobs()) {
      const earlierInterval = repeatable.name === schedule.name && Number(repeatable.every) !== schedule.every;
      if (earlierInterval || job.formerNames.includes(repeatable.name)) {
        await queue.removeRepeatableByKey(repeatable.key);
      }
    }
    await queue.add(schedule.name, schedule.payload, {
      repeat: { every: schedule.every },
      removeOnComplete: true,
      removeOnFail: job.keepFailed,
    });
  }
}
