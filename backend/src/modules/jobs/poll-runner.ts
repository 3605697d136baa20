import { Logger } from '@nestjs/common';
import { JobPoll } from './job';

/**
 * Runs the registry's polls (`JobPoll`) in this process, for a runtime that runs jobs here (Bull with PROCESS_JOBS,
 * the in-process runner): each `every` ms after the start and then after its previous run ended, so a slow run is
 * never joined by the next. A run that throws is logged once until one succeeds again (a database down would
 * otherwise log several times a second), and the poll goes on.
 */
export class PollRunner {
  private readonly logger = new Logger('JobPolls');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** The polls whose last run failed. */
  private readonly failing = new Set<string>();
  private stopped = false;

  constructor(private readonly polls: readonly JobPoll[]) {}

  start(): void {
    for (const poll of this.polls) this.next(poll, poll.every);
  }

  /** No run starts after this; resolves when the runs under way have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private next(poll: JobPoll, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run: Promise<void> = poll
        .run()
        .then(
          () => {
            if (this.failing.delete(poll.name)) this.logger.log(`${poll.name}: running again`);
          },
          (err) => {
            if (this.failing.has(poll.name)) return;
            this.failing.add(poll.name);
            this.logger.warn(`${poll.name}: ${err instanceof Error ? err.message : String(err)} (retrying)`);
          },
        )
        .finally(() => {
          this.running.delete(run);
          this.next(poll, poll.every);
        });
      this.running.add(run);
    }, delayMs);
    // A poll never keeps a process alive by itself.
    timer.unref();
    this.timers.add(timer);
  }
}
