import { INestApplicationContext, Logger } from '@nestjs/common';
import type { Server } from 'socket.io';
import { DataUpdateType, RealtimeService } from '../realtime/realtime.service';
import { JobQueue } from './job-queue';

/**
 * The embedded default's worker process (no REDIS_URL, EMBEDDED_WORKER on): `npm start` forks its own entry with
 * `--jobs-worker`; the fork runs the in-process job runner (the same handlers, attempts, backoff and sweeps) and the
 * API process hands it job ids over the IPC channel (`ChildProcessJobQueue`). docs/architecture.md "Processes".
 */
export const JOBS_WORKER_ARG = '--jobs-worker';

/** API → worker. */
export type ToWorker =
  | { kind: 'mail'; id: string }
  | { kind: 'poolAlert'; id: string }
  | { kind: 'customerLink'; id: string }
  | { kind: 'poolCheck'; productId: string | null }
  | { kind: 'webhook'; id: string; attempt: number; delayMs: number }
  | { kind: 'depth'; ask: number };

/** Worker → API. */
export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'depth'; ask: number; mail: number; webhook: number }
  | { kind: 'event'; type: DataUpdateType; message: string };

/** How the API process starts its worker: the same entry and Node options as itself. */
export interface WorkerProcessOptions {
  entry: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
}

export const WORKER_PROCESS = Symbol('WORKER_PROCESS');

/**
 * In the worker: runs what the API hands over with this process's JobQueue (the in-process runner), answers the
 * metrics' depth questions, and relays the jobs' real-time events (e-mail outcomes) to the API, which owns the
 * sockets. Tells the API it is ready once the runner is up (the API holds jobs until then).
 */
export function serveApiProcess(app: INestApplicationContext): void {
  const logger = new Logger('JobsWorker');
  const send = (message: FromWorker) => {
    if (!process.connected) return;
    process.send!(message, (err: Error | null) => {
      if (err) logger.warn(`Message to the API process lost: ${err.message}`);
    });
  };
  const queue = app.get(JobQueue);
  // Emits reach `server.to(room).emit(event, { type, message })`: the API emits them again to its sockets.
  const relay = {
    to: () => ({
      emit: (_event: string, data: { type: DataUpdateType; message: string }) => send({ kind: 'event', ...data }),
    }),
  };
  app.get(RealtimeService).attach(relay as unknown as Server);
  process.on('message', (message: ToWorker) => {
    switch (message.kind) {
      case 'mail':
        return queue.enqueueRedemptionMail(message.id);
      case 'poolAlert':
        return queue.enqueuePoolAlert(message.id);
      case 'customerLink':
        return queue.enqueueCustomerLink(message.id);
      case 'poolCheck':
        return queue.enqueuePoolCheck(message.productId);
      case 'webhook':
        return queue.enqueueWebhookDelivery(message.id, message.attempt, message.delayMs);
      case 'depth':
        void Promise.all([queue.pendingMailJobs(), queue.pendingWebhookJobs()]).then(([mail, webhook]) =>
          send({ kind: 'depth', ask: message.ask, mail, webhook }),
        );
        return;
    }
  });
  send({ kind: 'ready' });
}
