import { INestApplicationContext, Logger } from '@nestjs/common';
import { JobQueue } from './job-queue';

/**
 * The embedded default's worker process (no REDIS_URL, EMBEDDED_WORKER on): `npm start` forks its own entry with
 * `--jobs-worker`; the fork boots the same application module (so the same features register the same jobs) with
 * the in-process job runner, and the API process hands it jobs over the IPC channel (`ChildProcessJobQueue`).
 * docs/architecture.md "Processes".
 */
export const JOBS_WORKER_ARG = '--jobs-worker';

/** API → worker. */
export type ToWorker =
  { kind: 'add'; name: string; payload: unknown; delayMs?: number } | { kind: 'depth'; ask: number; queue: string };

/** Worker → API. */
export type FromWorker =
  { kind: 'ready' } | { kind: 'depth'; ask: number; pending: number } | { kind: 'relay'; topic: string; data: unknown };

/** How the API process starts its worker: the same entry and Node options as itself. */
export interface WorkerProcessOptions {
  entry: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
}

export const WORKER_PROCESS = Symbol('WORKER_PROCESS');

/** In the worker: sends `data` on `topic` to the API process (`ChildProcessJobQueue.onRelay` there). */
export type RelayToApi = (topic: string, data: unknown) => void;

/**
 * In the worker: runs what the API hands over with this process's JobQueue (the in-process runner) and answers the
 * metrics' depth questions. `beforeReady` wires what the worker relays to the API (the composition root relays the
 * jobs' real-time events: the API owns the sockets). Tells the API it is ready then (the API holds jobs until).
 */
export function serveApiProcess(app: INestApplicationContext, beforeReady: (relay: RelayToApi) => void): void {
  const logger = new Logger('JobsWorker');
  const send = (message: FromWorker) => {
    if (!process.connected) return;
    process.send!(message, (err: Error | null) => {
      if (err) logger.warn(`Message to the API process lost: ${err.message}`);
    });
  };
  const queue = app.get(JobQueue);
  beforeReady((topic, data) => send({ kind: 'relay', topic, data }));
  process.on('message', (message: ToWorker) => {
    switch (message.kind) {
      case 'add':
        return queue.add({ name: message.name }, message.payload, { delayMs: message.delayMs });
      case 'depth':
        void queue.pending(message.queue).then((pending) => send({ kind: 'depth', ask: message.ask, pending }));
        return;
    }
  });
  send({ kind: 'ready' });
}
