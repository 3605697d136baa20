import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ChildProcess, fork } from 'child_process';
import { Clock } from '../../common/clock';
import { JobKey } from './job';
import { AddOptions, JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
import { FromWorker, JOBS_WORKER_ARG, ToWorker, WORKER_PROCESS, WorkerProcessOptions } from './worker-process';

/** Jobs held while the worker starts (or restarts); beyond this they are dropped and the sweep finds them. */
const HELD_MAX = 100_000;
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A worker that ran this long before it died is restarted at once again (its backoff starts over). */
const STABLE_MS = 60_000;
const DEPTH_TIMEOUT_MS = 1000;
const STOP_TIMEOUT_MS = 20_000;

/**
 * The API process's queue in the embedded default (no REDIS_URL): the jobs run in a worker process it forks
 * (`worker-process.ts`), so sending e-mail never takes the API's core. A job (its name and payload, the ids of rows
 * already committed) is sent over the IPC channel; the worker boots the same application module, so the same
 * features register the same jobs there. A job lost with a worker that dies is found by its owner's sweep in that
 * worker's successor (pending e-mails, pool alerts, sign-in links, webhook deliveries). A worker that exits is started again, after
 * 0.5 s, doubling up to 30 s while it keeps dying; jobs queued meanwhile are held and handed to the new one.
 */
@Injectable()
export class ChildProcessJobQueue extends JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('JobsWorker');
  private child?: ChildProcess;
  private ready = false;
  private stopping = false;
  private held: ToWorker[] = [];
  private restartDelay = RESTART_FIRST_MS;
  private restartTimer?: NodeJS.Timeout;
  private startedAt = 0;
  private nextAsk = 1;
  private readonly asks = new Map<number, (depth: number | undefined) => void>();
  private readonly relays = new Map<string, (data: unknown) => void>();

  constructor(
    @Inject(WORKER_PROCESS) private readonly options: WorkerProcessOptions,
    private readonly registry: JobRegistry,
    private readonly clock: Clock,
  ) {
    super();
  }

  /**
   * What the worker relays on `topic` (`relayToApiProcess` there) is handed to `handler` here: the composition root
   * wires the real-time events of the jobs (e-mail outcomes) to the sockets this process owns.
   */
  onRelay(topic: string, handler: (data: unknown) => void): void {
    this.relays.set(topic, handler);
  }

  /** The running worker's process id (health and tests). */
  get workerPid(): number | undefined {
    return this.child?.pid;
  }

  add<P>(key: JobKey<P>, payload: P, options: AddOptions = {}): void {
    // Unknown names fail here, in the caller's process, as they would with the other runtimes.
    this.registry.get(key.name);
    this.post({ kind: 'add', name: key.name, payload, delayMs: options.delayMs });
  }

  async pending(queue: string): Promise<number> {
    const held = this.held.filter((m) => m.kind === 'add' && this.registry.get(m.name).queue === queue).length;
    return ((await this.askDepth(queue)) ?? 0) + held;
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // The worker finishes the sends it has started, then exits (held jobs stay pending rows: the next start sweeps).
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS)));
    if (await Promise.race([exited.then(() => false), timedOut])) {
      this.logger.warn(`Worker ${child.pid} still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM: killing it`);
      child.kill('SIGKILL');
      await exited;
    }
    clearTimeout(timer);
  }

  private post(message: ToWorker): void {
    if (this.stopping) return;
    if (this.ready && this.child?.connected) {
      this.child.send(message, (err) => {
        if (err) this.logger.warn(`Job not handed to the worker (the sweep will find it): ${err.message}`);
      });
    } else if (this.held.length < HELD_MAX) {
      this.held.push(message);
    }
  }

  private start(): void {
    this.restartTimer = undefined;
    if (this.stopping) return;
    this.ready = false;
    this.startedAt = this.clock.now().getTime();
    const child = fork(this.options.entry, [JOBS_WORKER_ARG], {
      execArgv: this.options.execArgv,
      env: this.options.env,
      stdio: 'inherit',
    });
    this.child = child;
    child.on('message', (message: FromWorker) => this.onMessage(message));
    child.on('error', (err) => this.logger.warn(`Worker ${child.pid}: ${err.message}`));
    child.once('exit', (code, signal) => this.onExit(child, code, signal));
    this.logger.log(`Started the job worker, pid ${child.pid}`);
  }

  private onMessage(message: FromWorker): void {
    switch (message.kind) {
      case 'ready': {
        this.ready = true;
        const held = this.held;
        this.held = [];
        for (const job of held) this.post(job);
        return;
      }
      case 'depth':
        this.asks.get(message.ask)?.(message.pending);
        this.asks.delete(message.ask);
        return;
      case 'relay':
        this.relays.get(message.topic)?.(message.data);
        return;
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.ready = false;
    for (const answer of this.asks.values()) answer(undefined);
    this.asks.clear();
    if (this.stopping) return;
    if (this.clock.now().getTime() - this.startedAt >= STABLE_MS) this.restartDelay = RESTART_FIRST_MS;
    this.logger.error(
      `Job worker ${child.pid} exited (${signal ?? `code ${code}`}); starting another in ${this.restartDelay} ms. ` +
        'Its pending e-mails stay pending and are sent by the next one.',
    );
    this.restartTimer = setTimeout(() => this.start(), this.restartDelay);
    this.restartDelay = Math.min(RESTART_MAX_MS, this.restartDelay * 2);
  }

  private askDepth(queue: string): Promise<number | undefined> {
    const child = this.child;
    if (!this.ready || !child?.connected) return Promise.resolve(undefined);
    const ask = this.nextAsk++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.asks.delete(ask);
        resolve(undefined);
      }, DEPTH_TIMEOUT_MS);
      this.asks.set(ask, (depth) => {
        clearTimeout(timer);
        resolve(depth);
      });
      child.send({ kind: 'depth', ask, queue } satisfies ToWorker, (err) => {
        if (err) this.asks.get(ask)?.(undefined);
      });
    });
  }
}
