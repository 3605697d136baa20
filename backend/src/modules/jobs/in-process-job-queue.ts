import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobKey, RegisteredJob } from './job';
import { AddOptions, JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { PollRunner } from './poll-runner';

/**
 * Runs the registered jobs inside this process when no Redis is configured (the forked embedded worker, tests,
 * EMBEDDED_WORKER=false): the same handlers, attempts and exponential backoff as Bull, one live job per job id.
 * Jobs waiting for a retry are lost on shutdown; their owners' sweeps find them again on the next start because
 * their rows are still pending. Schedules run once at start too, so a process restarted more often than a
 * schedule's interval still runs it. The polls (`JobPoll`) run here too.
 */
@Injectable()
export class InProcessJobQueue extends JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InProcessJobs');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly intervals: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<unknown>>();
  /** Jobs per queue from their add until they succeed or give up. */
  private readonly live = new Map<string, number>();
  /** Job ids of the live jobs that have one. */
  private readonly ids = new Set<string>();
  private stopped = false;
  private polls?: PollRunner;

  constructor(private readonly registry: JobRegistry) {
    super();
  }

  add<P>(key: JobKey<P>, payload: P, options: AddOptions = {}): void {
    if (this.stopped) return;
    const job = this.registry.get(key.name);
    const id = job.jobId?.(payload);
    if (id !== undefined) {
      if (this.ids.has(id)) return;
      this.ids.add(id);
    }
    this.live.set(job.queue, (this.live.get(job.queue) ?? 0) + 1);
    this.schedule(Math.max(0, options.delayMs ?? 0), () => this.attempt(job, payload, id, 1));
  }

  pending(queue: string): Promise<number> {
    return Promise.resolve(this.live.get(queue) ?? 0);
  }

  onApplicationBootstrap(): void {
    for (const { name, every, payload } of this.registry.schedules()) {
      const job = this.registry.get(name);
      const run = () => job.handle(payload, { attempt: 1, attempts: 1 });
      const timer = setInterval(() => this.track(run()), every);
      timer.unref();
      this.intervals.push(timer);
      // Picks up what a previous run left (sweeps), and runs what is due however often the process restarts.
      this.schedule(0, run);
    }
    this.polls = new PollRunner(this.registry.polls());
    this.polls.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.polls?.stop();
    for (const timer of this.intervals) clearInterval(timer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private async attempt(job: RegisteredJob, payload: unknown, id: string | undefined, attempt: number): Promise<void> {
    try {
      await job.handle(payload, { attempt, attempts: job.attempts });
    } catch (err) {
      if (attempt < job.attempts && !this.stopped) {
        this.schedule(job.backoffMs * 2 ** (attempt - 1), () => this.attempt(job, payload, id, attempt + 1));
        return;
      }
      this.logger.error(`Job ${id ?? job.name} gave up: ${err instanceof Error ? err.message : err}`);
    }
    if (id !== undefined) this.ids.delete(id);
    this.live.set(job.queue, (this.live.get(job.queue) ?? 1) - 1);
  }

  private schedule(delayMs: number, work: () => Promise<unknown>): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(work());
    }, delayMs);
    this.timers.add(timer);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise
      .catch((err) => this.logger.error(err instanceof Error ? err.message : String(err)))
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }
}
