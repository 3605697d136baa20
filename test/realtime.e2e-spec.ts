import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { io, Socket } from 'socket.io-client';
import { RealtimeGateway } from '../backend/src/modules/realtime/realtime.gateway';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken, tokenFor } from './helpers/auth';
import { productId, PRODUCTS } from './helpers/factories';
import { redeemNew } from './helpers/redemptions';

interface DataUpdate {
  type: string;
  message: string;
}

function connect(t: TestApp, auth?: Record<string, string>): Promise<Socket> {
  const socket = io(t.baseUrl, { transports: ['websocket'], reconnection: false, forceNew: true, auth });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Sends join-admin and resolves with the server's answer: joined, or refused (and disconnected). */
function joinAdmin(socket: Socket, token: unknown): Promise<'joined' | 'refused'> {
  return new Promise((resolve) => {
    socket.once('admin-joined', () => resolve('joined'));
    socket.once('join-error', () => resolve('refused'));
    socket.emit('join-admin', { token });
  });
}

function nextUpdate(socket: Socket, type: string, timeoutMs = 5000): Promise<DataUpdate> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no dataUpdate ${type}`)), timeoutMs);
    const onUpdate = (update: DataUpdate) => {
      if (update.type !== type) return;
      clearTimeout(timer);
      socket.off('dataUpdate', onUpdate);
      resolve(update);
    };
    socket.on('dataUpdate', onUpdate);
  });
}

function disconnected(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.disconnected ? resolve() : socket.once('disconnect', () => resolve())));
}

describe('Real time (socket.io)', () => {
  let t: TestApp;
  const sockets: Socket[] = [];
  const open = async (auth?: Record<string, string>) => {
    const socket = await connect(t, auth);
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    sockets.forEach((s) => s.disconnect());
    await t.close();
  });

  it('an admin socket receives dataUpdate after a resend', async () => {
    const token = await tokenFor(t, 'admin');
    const socket = await open();
    expect(await joinAdmin(socket, token)).toBe('joined');
    const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    const update = nextUpdate(socket, 'emailResend');
    await t.http().post(`/api/redemptions/${r.id}/resend-email`).set(bearer(token)).expect(200);
    expect(await update).toEqual({ type: 'emailResend', message: `E-mail for voucher ${r.code} queued for sending` });
  });

  it('a public redemption tells admins, one event per second however many redeem', async () => {
    const token = await tokenFor(t, 'admin');
    const socket = await open();
    expect(await joinAdmin(socket, token)).toBe('joined');
    const updates: DataUpdate[] = [];
    socket.on('dataUpdate', (u: DataUpdate) => updates.push(u));
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const burst = await Promise.all(Array.from({ length: 10 }, () => redeemNew(t, mac)));
    await new Promise((r) => setTimeout(r, 1500));
    const voucherUpdates = updates.filter((u) => u.type === 'voucherUpdate');
    // The first goes out at once, the rest of the burst as one trailing event with the latest message.
    expect(voucherUpdates.length).toBeGreaterThanOrEqual(1);
    expect(voucherUpdates.length).toBeLessThanOrEqual(2);
    expect(burst.map((r) => `Voucher ${r.code} redeemed`)).toContain(voucherUpdates[voucherUpdates.length - 1].message);
    socket.off('dataUpdate');
  });

  it('accepts the token in the handshake too, and an operator', async () => {
    const socket = io(t.baseUrl, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { token: await tokenFor(t, 'operator') },
    });
    sockets.push(socket);
    await new Promise((resolve) => socket.once('admin-joined', resolve));
    const update = nextUpdate(socket, 'redemptionDeleted');
    const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    await t
      .http()
      .delete(`/api/redemptions/${r.id}`)
      .set(bearer(await tokenFor(t, 'admin')))
      .expect(200);
    expect((await update).type).toBe('redemptionDeleted');
  });

  it.each([
    ['garbage', () => Promise.resolve('not-a-jwt')],
    ['missing', () => Promise.resolve(undefined)],
    [
      'wrong secret',
      async () => {
        const { JwtService } = await import('@nestjs/jwt');
        return new JwtService().signAsync(
          { sub: 'x', sid: 'y', typ: 'access' },
          { secret: 'another-secret-of-at-least-32-bytes!!', algorithm: 'HS256' },
        );
      },
    ],
    [
      'revoked session',
      async () => {
        const user = await createAdminUser(t);
        const { token, sessionId } = await issueToken(t, user.id);
        await t.db.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
        return token;
      },
    ],
    [
      'inactive user',
      async () => {
        const user = await createAdminUser(t);
        const { token } = await issueToken(t, user.id);
        await t.db.query(`UPDATE admin_users SET is_active = false WHERE id = $1`, [user.id]);
        return token;
      },
    ],
    ['role without permissions', () => tokenFor(t, 'guest')],
  ])('refuses an invalid token (%s) and disconnects', async (_name, makeToken) => {
    const token = await makeToken();
    const socket = await open();
    const error = new Promise((resolve) => socket.once('join-error', resolve));
    socket.emit('join-admin', { token });
    expect(await error).toEqual({ message: 'Invalid or expired token' });
    await disconnected(socket);
    expect(socket.connected).toBe(false);
  });

  it('disconnects a joined socket once its session is revoked', async () => {
    const user = await createAdminUser(t);
    const { token, sessionId } = await issueToken(t, user.id);
    const kept = await open();
    expect(await joinAdmin(kept, await tokenFor(t, 'admin'))).toBe('joined');
    const socket = await open();
    expect(await joinAdmin(socket, token)).toBe('joined');
    const gateway = t.app.get(RealtimeGateway);
    expect(await gateway.recheckSessions()).toBe(0);

    await t.db.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
    const error = new Promise((resolve) => socket.once('join-error', resolve));
    expect(await gateway.recheckSessions()).toBe(1);
    expect(await error).toEqual({ message: 'Session ended' });
    await disconnected(socket);
    expect(kept.connected).toBe(true);
  });

  it('sends nothing to sockets that have not joined', async () => {
    const watcher = await open();
    const joined = await open();
    expect(await joinAdmin(joined, await tokenFor(t, 'admin'))).toBe('joined');
    const seen: DataUpdate[] = [];
    watcher.on('dataUpdate', (u: DataUpdate) => seen.push(u));
    const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    const update = nextUpdate(joined, 'emailResend');
    await t
      .http()
      .post(`/api/redemptions/${r.id}/resend-email`)
      .set(bearer(await tokenFor(t, 'admin')))
      .expect(200);
    await update;
    expect(seen).toEqual([]);
  });
});

describe('Real time across API instances (Redis adapter)', () => {
  let a: TestApp;
  let b: TestApp;
  let socket: Socket | undefined;
  const prefix = `rt-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    // Two API instances sharing one Redis prefix; each has its own database here, which is enough to
    // show that an event emitted on one instance reaches a socket connected to the other.
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: prefix };
    a = await startTestApp(env);
    b = await startTestApp(env);
  });
  afterAll(async () => {
    socket?.disconnect();
    await a.close();
    await b.close();
    // Bull's keys (repeatable jobs) under this run's prefix.
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('delivers an event emitted on instance B to an admin connected to instance A', async () => {
    socket = await connect(a);
    expect(await joinAdmin(socket, await tokenFor(a, 'admin'))).toBe('joined');
    const r = await redeemNew(b, await productId(b.db, PRODUCTS.homeBusinessMac));
    const update = nextUpdate(socket, 'emailResend', 10_000);
    await b
      .http()
      .post(`/api/redemptions/${r.id}/resend-email`)
      .set(bearer(await tokenFor(b, 'admin')))
      .expect(200);
    expect(await update).toEqual({ type: 'emailResend', message: `E-mail for voucher ${r.code} queued for sending` });
  });
});
