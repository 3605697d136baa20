import { Inject, Logger } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { AccessTokenPayload } from '../auth/auth-user';
import { Permission, permissionsOf } from '../auth/permissions';
import { ADMINS_ROOM, RealtimeService } from './realtime.service';

export const REALTIME_MESSAGES = {
  invalidToken: 'Invalid or expired token',
} as const;

/**
 * socket.io on the API's own origin (DECISIONS §11). A client joins the `admins` room with
 * `join-admin {token}` (or `auth: {token}` in the handshake); the access token is checked like the HTTP
 * guard checks it: signature, an active unexpired session, an active user whose role may view the dashboard.
 * Anything else gets `join-error` and is disconnected.
 */
@WebSocketGateway()
export class RealtimeGateway implements OnGatewayInit, OnGatewayConnection {
  private readonly logger = new Logger(RealtimeGateway.name);
  private readonly jwt = new JwtService();

  constructor(
    private readonly realtime: RealtimeService,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(server: Server): void {
    this.realtime.attach(server);
  }

  async handleConnection(socket: Socket): Promise<void> {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    // The handshake token is optional: the SPEC client sends join-admin after connecting.
    if (token !== undefined) await this.join(socket, token);
  }

  @SubscribeMessage('join-admin')
  async joinAdmin(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown) {
    const token = typeof body === 'string' ? body : (body as { token?: unknown } | undefined)?.token;
    return this.join(socket, token);
  }

  private async join(socket: Socket, token: unknown): Promise<{ success: boolean; message?: string }> {
    const userId = await this.verify(token);
    if (!userId) {
      socket.emit('join-error', { message: REALTIME_MESSAGES.invalidToken });
      // Let the error frame leave before the transport closes.
      setImmediate(() => socket.disconnect(true));
      return { success: false, message: REALTIME_MESSAGES.invalidToken };
    }
    socket.data.adminUserId = userId;
    await socket.join(ADMINS_ROOM);
    socket.emit('admin-joined', { success: true });
    return { success: true };
  }

  /** The admin user's id when the token is a valid access token of a live session, else null. */
  private async verify(token: unknown): Promise<string | null> {
    if (typeof token !== 'string' || !token || token.length > 4096) return null;
    let payload: AccessTokenPayload;
    try {
      payload = await this.jwt.verifyAsync<AccessTokenPayload>(token, {
        secret: this.config.jwtSecret,
        algorithms: ['HS256'],
      });
    } catch {
      return null;
    }
    if (payload?.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
    try {
      const [row] = await this.dataSource.query(
        `SELECT u.role FROM admin_sessions s JOIN admin_users u ON u.id = s.admin_user_id
          WHERE s.id = $1 AND s.admin_user_id = $2 AND s.is_active AND s.expires_at > now() AND u.is_active`,
        [payload.sid, payload.sub],
      );
      if (!row || !permissionsOf(row.role).includes(Permission.DashboardView)) return null;
      return payload.sub;
    } catch (err) {
      // A malformed id in a correctly signed token, or the database away: refuse, never crash the socket.
      this.logger.warn(`join-admin refused: ${err instanceof Error ? err.message : err}`);
      return null;
    }
  }
}
