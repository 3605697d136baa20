import { Injectable, Logger } from '@nestjs/common';
import type { Server } from 'socket.io';
import { Clock } from '../../common/clock';
import { maskInventory, NO_PERMISSIONS } from '../../common/inventory/inventory';
import type { ClientToServerEvents, DataUpdate, DataUpdateType, ServerToClientEvents } from './realtime-events';

export type { DataUpdateType } from './realtime-events';

export const ADMINS_ROOM = 'admins';

/** The socket.io server with the channel's event maps. */
export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents>;

/**
 * A `dataUpdate` event (realtime-events.ts). The admins' room holds every role, shop managers too: any field declared
 * `@Inventory(…)` here is masked for everyone in it (docs/architecture.md "Inventory fields").
 */
export class DataUpdateEvent implements DataUpdate {
  type: DataUpdateType;
  message: string;
}

/**
 * How services tell signed-in admins that data changed. Services call this, never the gateway; the
 * gateway attaches its socket.io server on start (with REDIS_URL the Redis adapter fans events out
 * to every API instance).
 */
@Injectable()
export class RealtimeService {
  private readonly logger = new Logger(RealtimeService.name);
  private server?: RealtimeServer;
  private readonly lastSent = new Map<DataUpdateType, number>();
  private readonly trailing = new Map<DataUpdateType, { timer: NodeJS.Timeout; message: string }>();

  constructor(private readonly clock: Clock) {}

  attach(server: RealtimeServer): void {
    this.server = server;
  }

  /**
   * For changes made by public traffic (redemptions): at most one event of a type per window, the last
   * message winning, so a burst of redemptions does not make every admin console refetch hundreds of times.
   */
  emitThrottled(type: DataUpdateType, message: string, windowMs = 1000): void {
    if (!this.server) return;
    const pending = this.trailing.get(type);
    if (pending) {
      pending.message = message;
      return;
    }
    const wait = (this.lastSent.get(type) ?? 0) + windowMs - this.clock.now().getTime();
    if (wait <= 0) {
      this.lastSent.set(type, this.clock.now().getTime());
      this.emit(type, message);
      return;
    }
    const timer = setTimeout(() => {
      const latest = this.trailing.get(type)!.message;
      this.trailing.delete(type);
      this.lastSent.set(type, this.clock.now().getTime());
      this.emit(type, latest);
    }, wait);
    timer.unref();
    this.trailing.set(type, { timer, message });
  }

  emit(type: DataUpdateType, message: string): void {
    if (!this.server) return;
    try {
      const event: DataUpdateEvent = { type, message };
      this.server.to(ADMINS_ROOM).emit('dataUpdate', maskInventory(event, DataUpdateEvent, NO_PERMISSIONS));
    } catch (err) {
      // A broken broadcast must never fail the change that caused it.
      this.logger.warn(`dataUpdate ${type} not sent: ${err instanceof Error ? err.message : err}`);
    }
  }
}
