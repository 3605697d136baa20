import type { INestApplicationContext } from '@nestjs/common';
import type { Server } from 'socket.io';
import { ChildProcessJobQueue } from '../jobs/child-process-job-queue';
import { DataUpdateType, RealtimeService } from './realtime.service';

/** The topic the embedded worker relays its real-time events on (worker-process.ts's relay channel). */
export const REALTIME_RELAY = 'realtime';

interface RelayedEvent {
  type: DataUpdateType;
  message: string;
}

/**
 * In the embedded worker: a stand-in for the socket.io server whose emits (`server.to(room).emit(event, {type,
 * message})`) go to the API process, which owns the sockets. Throttled already in the worker, as they would have
 * been in the API.
 */
export function relayingServer(relay: (topic: string, data: RelayedEvent) => void): Server {
  const server = { to: () => ({ emit: (_event: string, data: RelayedEvent) => relay(REALTIME_RELAY, data) }) };
  return server as unknown as Server;
}

/** In the API process: emits an event the worker relayed to this process's sockets. */
export function emitRelayed(realtime: RealtimeService, data: unknown): void {
  const event = data as RelayedEvent;
  realtime.emit(event.type, event.message);
}

/** The embedded API process: the events its worker process relays reach this process's sockets. */
export function receiveWorkerEvents(app: INestApplicationContext): void {
  const realtime = app.get(RealtimeService);
  app.get(ChildProcessJobQueue).onRelay(REALTIME_RELAY, (data) => emitRelayed(realtime, data));
}

/**
 * A process without sockets (a worker): its real-time events go out through `server` (the relay to the embedded
 * API process, or the Redis emitter that reaches every API instance).
 */
export function emitThrough(app: INestApplicationContext, server: Server): void {
  app.get(RealtimeService).attach(server);
}
