import { Inject, Logger, OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Socket as ServerSocket } from 'socket.io';
import { Permission } from '../../common/permissions';
import { forwardedClientIp } from '../../common/utils/client-ip';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AUTH_MESSAGES } from '../auth/auth.guard';
import { BlockedIpService } from '../auth/blocked-ip.service';
import { SessionService } from '../auth/session.service';
import type { ClientToServerEvents, ServerToClientEvents } from './realtime-events';
import { ADMINS_ROOM, RealtimeServer, RealtimeService } from './realtime.service';

type Socket = ServerSocket<ClientToServerEvents, ServerToClientEvents>;

export const REALTIME_MESSAGES = {
  invalidToken: 'Invalid or expired token',
  sessionEnded: 'Session ended',
} as const;

/**
 * socket.io on the API's own origin (docs/product.md §17.1). A client joins the `admins` room with
 * `join-admin {token}` (or `auth: {token}` in the handshake); the access token is checked like the HTTP
 * guard checks it: signature, an active unexpired session, an active user whose role may view the dashboard.
 * Anything else gets `join-error` and is disconnected, and so is a socket that has not tried to join within
 * REALTIME_JOIN_TIMEOUT_MS. Joined sockets whose session ends (logout, revoked,
 * expired, user deactivated) are disconnected at the next periodic check (every REALTIME_SESSION_RECHECK_MS).
 */
@WebSocketGateway()
export class RealtimeGateway implements OnGatewayInit, OnGatewayConnection, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeGateway.name);
  private server?: RealtimeServer;
  private recheckTimer?: NodeJS.Timeout;

  constructor(
    private readonly realtime: RealtimeService,
    private readonly sessions: SessionService,
    private readonly blockedIps: BlockedIpService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(server: RealtimeServer): void {
    this.server = server;
    // A blocked address (blocked_ips, either kind) gets no socket at all, as it gets 403/429 on every HTTP route:
    // the handshake fails with connect_error before any event or join-admin is looked at.
    server.use((socket, next) => {
      const { headers } = socket.request;
      const ip = forwardedClientIp(
        socket.request.socket.remoteAddress,
        headers['x-forwarded-for'],
        this.config.trustProxy,
      );
      this.blockedIps.blockOf(ip).then(
        (block) => next(block ? new Error(AUTH_MESSAGES.ipBlocked) : undefined),
        () => next(),
      );
    });
    this.realtime.attach(server);
    this.recheckTimer = setInterval(() => void this.recheckSessions(), this.config.realtimeSessionRecheckMs);
    this.recheckTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.recheckTimer) clearInterval(this.recheckTimer);
  }

  /** Disconnects this instance's joined sockets whose session is no longer valid. Returns how many. */
  async recheckSessions(): Promise<number> {
    if (!this.server) return 0;
    const joined = [...this.server.sockets.sockets.values()].filter((s) => s.data.sessionId);
    if (!joined.length) return 0;
    let live: Set<string>;
    try {
      live = new Set(await this.sessions.liveSessionIds([...new Set(joined.map((s) => s.data.sessionId as string))]));
    } catch (err) {
      // The database away is no reason to drop every admin; try again next time.
      this.logger.warn(`Session re-check skipped: ${err instanceof Error ? err.message : err}`);
      return 0;
    }
    const ended = joined.filter((s) => !live.has(s.data.sessionId));
    for (const socket of ended) this.refuse(socket, REALTIME_MESSAGES.sessionEnded);
    return ended.length;
  }

  /** Tells the client why, then disconnects it (out of the admins room at once). */
  private refuse(socket: Socket, message: string): void {
    socket.emit('join-error', { message });
    // Let the error frame leave before the transport closes.
    setImmediate(() => socket.disconnect(true));
  }

  async handleConnection(socket: Socket): Promise<void> {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    if (token !== undefined) {
      await this.join(socket, token);
      return;
    }
    // The handshake token is optional: the console sends join-admin right after connecting. A socket that
    // never tries is closed after REALTIME_JOIN_TIMEOUT_MS rather than held open for nothing.
    const deadline = setTimeout(() => {
      if (!socket.data.joinAttempted) this.refuse(socket, REALTIME_MESSAGES.invalidToken);
    }, this.config.realtimeJoinTimeoutMs);
    deadline.unref();
    socket.once('disconnect', () => clearTimeout(deadline));
  }

  @SubscribeMessage('join-admin')
  async joinAdmin(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown) {
    const token = typeof body === 'string' ? body : (body as { token?: unknown } | undefined)?.token;
    return this.join(socket, token);
  }

  private async join(socket: Socket, token: unknown): Promise<{ success: boolean; message?: string }> {
    socket.data.joinAttempted = true;
    const session = await this.verify(token);
    if (!session) {
      this.refuse(socket, REALTIME_MESSAGES.invalidToken);
      return { success: false, message: REALTIME_MESSAGES.invalidToken };
    }
    socket.data.adminUserId = session.userId;
    socket.data.sessionId = session.sessionId;
    await socket.join(ADMINS_ROOM);
    socket.emit('admin-joined', { success: true });
    return { success: true };
  }

  /** The user and session when the token is a valid access token of a live session, else null. */
  private async verify(token: unknown): Promise<{ userId: string; sessionId: string } | null> {
    if (typeof token !== 'string' || !token || token.length > 4096) return null;
    try {
      // The same check as the HTTP guard's: signature, live session, active user.
      const user = await this.sessions.verifyAccessToken(token);
      if (!user || !user.permissions.includes(Permission.DashboardView)) return null;
      return { userId: user.id, sessionId: user.sessionId };
    } catch (err) {
      // The database away: refuse, never crash the socket.
      this.logger.warn(`join-admin refused: ${err instanceof Error ? err.message : err}`);
      return null;
    }
  }
}
