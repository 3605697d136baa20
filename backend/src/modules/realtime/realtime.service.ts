import { Injectable, Logger } from '@nestjs/common';
import type { Server } from 'socket.io';

/** SPEC §3 real-time event types. */
export type DataUpdateType = 'licenseAssignment' | 'emailResend' | 'redemptionDeleted' | 'productUpdate' | 'voucherUpdate';

export const ADMINS_ROOM = 'admins';

/**
 * How services tell signed-in admins that data changed. Services call this, never the gateway; the
 * gateway attaches its socket.io server on start (with REDIS_URL the Redis adapter fans events out
 * to every API instance).
 */
@Injectable()
export class RealtimeService {
  private readonly logger = new Logger(RealtimeService.name);
  private server?: Server;

  attach(server: Server): void {
    this.server = server;
  }

  emit(type: DataUpdateType, message: string): void {
    if (!this.server) return;
    try {
      this.server.to(ADMINS_ROOM).emit('dataUpdate', { type, message });
    } catch (err) {
      // A broken broadcast must never fail the change that caused it.
      this.logger.warn(`dataUpdate ${type} not sent: ${err instanceof Error ? err.message : err}`);
    }
  }
}
