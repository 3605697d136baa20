import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ChildProcess, fork } from 'child_process';
import { RealtimeService } from '../realtime/realtime.service';
import { JobQueue } from './job-queue';
import { FromWorker, JOBS_WORKER_ARG, ToWorker, WORKER_PROCESS, WorkerProcessOptions } from './worker-process';

/** Jobs held while the worker starts (or restarts); beyond this they are dropped and the sweep finds them. */
const HELD_MAX = 100_000;
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A worker that ran this long before it died is restarted at once again (its backoff starts over). */
const STABLE_MS = 60_000;
const DEPTH_TIMEOUT_MS = 1000;
const STOP_TIMEOUT_MS = 20_000;

type Depth = { mail: number; webhook: number };

/**
 * The API process's queue in the embedded default (no REDIS_URL): the jobs run in a worker process it forks
 * (`worker-process.ts`), so sending e-mail never takes the API's core. A job is an id sent over the IPC channel;
 * the row it names is already committed, so a job lost with a worker that dies is found by that worker's
 * successor's sweep (pending e-mails, pool alerts, webhook deliveries). A worker that exits is started again, after
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
  private readonly asks = new Map<number, (depth: Depth | undefined) => void>();

  constructor(
    @Inject(WORKER_PROCESS) private readonly options: WorkerProcessOptions,
    private readonly realtime: RealtimeService,
  ) {
    super();
  }

  /** The running worker's process id (health and tests). */
  get workerPid(): number | undefined {
    return this.child?.pid;
  }

  enqueueRedemptionMail(redemptionId: string): void {
    this.post({ kind: 'mail', id: redemptionId });
  }

  enqueuePoolAlert(alertId: string): void {
    this.post({ kind: 'poolAlert', id: alertId });
  }

  enqueueCustomerLink(linkId: string): void {
    this.post({ kind: 'customerLink', id: linkId });
  }

  enqueuePoolCheck(productId: string | null): void {
    this.post({ kind: 'poolCheck', productId });
  }

  enqueueWebhookDelivery(deliveryId: string, attempt: number, delayMs: number): void {
    this.post({ kind: 'webhook', id: deliveryId, attempt, delayMs });
  }

  async pendingMailJobs(): Promise<number> {
    return (
      ((await this.askDepth())?.mail ?? 0) +
      this.held.filter((m) => m.kind === 'mail' || m.kind === 'poolAlert' || m.kind === 'customerLink').length
    );
  }

  async pendingWebhookJobs(): Promise<number> {
    return ((await this.askDepth())?.webhook ?? 0) + this.held.filter((m) => m.kind === 'webhook').length;
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.stopPoolChecks();
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
    this.startedAt = Date.now();
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
        this.asks.get(message.ask)?.({ mail: message.mail, webhook: message.webhook });
        this.asks.delete(message.ask);
        return;
      case 'event':
        // Already throttled in the worker, as it would have been in this process.
        this.realtime.emit(message.type, message.message);
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
    if (Date.now() - this.startedAt >= STABLE_MS) this.restartDelay = RESTART_FIRST_MS;
    this.logger.error(
      `Job worker ${child.pid} exited (${signal ?? `code ${code}`}); starting another in ${this.restartDelay} ms. ` +
        'Its pending e-mails stay pending and are sent by the next one.',
    );
    this.restartTimer = setTimeout(() => this.start(), this.restartDelay);
    this.restartDelay = Math.min(RESTART_MAX_MS, this.restartDelay * 2);
  }

  private askDepth(): Promise<Depth | undefined> {
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
      child.send({ kind: 'depth', ask } satisfies ToWorker, (err) => {
        if (err) this.asks.get(ask)?.(undefined);
      });
    });
  }
}
