import { io, Socket } from 'socket.io-client';
import { TestApp } from './app';
import { tokenFor } from './auth';
import type { DataUpdate } from '../../backend/src/modules/realtime/realtime-events';

export type { DataUpdate } from '../../backend/src/modules/realtime/realtime-events';

/** A socket.io client joined to the `admins` room with a fresh admin's token. */
export async function connectAdmin(t: TestApp): Promise<Socket> {
  const token = await tokenFor(t, 'admin');
  const socket = io(t.baseUrl, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('admin-joined', () => resolve());
    socket.once('join-error', () => reject(new Error('join-admin refused')));
    socket.emit('join-admin', { token });
  });
  return socket;
}

/** The next `dataUpdate` event of `type` (register it before the action that sends it). */
export function nextUpdate(socket: Socket, type: string): Promise<DataUpdate> {
  return new Promise((resolve) => {
    const onUpdate = (update: DataUpdate) => {
      if (update.type !== type) return;
      socket.off('dataUpdate', onUpdate);
      resolve(update);
    };
    socket.on('dataUpdate', onUpdate);
  });
}
