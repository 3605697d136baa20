import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { io, Socket } from 'socket.io-client';
import { Logger } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { RealtimeService } from '../backend/src/modules/realtime/realtime.service';
import { BlockedIpService, GUESS_BLOCK_REASON } from '../backend/src/modules/auth/blocked-ip.service';
import { workerEventServer } from '../backend/src/modules/realtime/redis-io.adapter';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken, tokenFor } from './helpers/auth';
import { productId, PRODUCTS } from './helpers/factories';
import { eventually, redeemNew } from './helpers/redemptions';

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

/** The next update of `type` (with `message`, when given: another test's e-mail may settle meanwhile). */
function nextUpdate(socket: Socket, type: string, timeoutMs = 5000, message?: string): Promise<DataUpdate> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no dataUpdate ${type} ${message ?? ''}`)), timeoutMs);
    const onUpdate = (update: DataUpdate) => {
      if (update.type !== type || (message !== undefined && update.message !== message)) return;
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

/** A socket as the client library opens it, every dataUpdate and join-error it receives recorded from the start. */
function watched(t: TestApp, auth?: Record<string, unknown>) {
  const socket = io(t.baseUrl, { transports: ['websocket'], reconnection: false, forceNew: true, auth });
  const updates: DataUpdate[] = [];
  const errors: unknown[] = [];
  socket.on('dataUpdate', (u: DataUpdate) => updates.push(u));
  socket.on('join-error', (e: unknown) => errors.push(e));
  return { socket, updates, errors, gone: new Promise<void>((resolve) => socket.once('disconnect', () => resolve())) };
}

/** Broadcasts a dataUpdate to the admins room every 10 ms until stopped: events are flowing the whole time. */
function keepEmitting(t: TestApp): () => void {
  const realtime = t.app.get(RealtimeService);
  let n = 0;
  const timer = setInterval(() => realtime.emit('productUpdate', `tick ${++n}`), 10);
  return () => clearInterval(timer);
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
    // The periodic session re-check runs every 200 ms here, so a test waits for it instead of for a minute.
    // TRUST_PROXY=loopback: a test speaks for a client address through X-Forwarded-For, as the proxy does.
    t = await startTestApp({ REALTIME_SESSION_RECHECK_MS: '200', TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    sockets.forEach((s) => s.disconnect());
    await t.close();
  });
  afterEach(() => jest.restoreAllMocks());

  // engine.io's own header (its polling transport), as the API's no-store middleware gives every API answer.
  it('lets no polling answer be stored, the handshake included', async () => {
    const handshake = await fetch(`${t.baseUrl}/socket.io/?EIO=4&transport=polling`);
    expect(handshake.status).toBe(200);
    expect(handshake.headers.get('cache-control')).toBe('no-store');
    const { sid } = JSON.parse((await handshake.text()).slice(1));
    // The session's next poll: the server's answer to the client's connect packet, the same way.
    await fetch(`${t.baseUrl}/socket.io/?EIO=4&transport=polling&sid=${sid}`, { method: 'POST', body: '40' });
    const poll = await fetch(`${t.baseUrl}/socket.io/?EIO=4&transport=polling&sid=${sid}`);
    expect(poll.status).toBe(200);
    expect(poll.headers.get('cache-control')).toBe('no-store');
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

  it('a public redemption tells admins through the throttle, each broadcast the latest message given', async () => {
    const realtime = t.app.get(RealtimeService);
    const throttled = jest.spyOn(realtime, 'emitThrottled');
    const sent: Array<{ message: string; latestGiven: string }> = [];
    const emit = realtime.emit.bind(realtime);
    // What the throttle was last given when it broadcasts (its window is timed in realtime.service.spec.ts).
    const latestGiven = () => throttled.mock.calls.filter(([type]) => type === 'voucherUpdate').at(-1)?.[1];
    jest.spyOn(realtime, 'emit').mockImplementation((type, message) => {
      if (type === 'voucherUpdate') sent.push({ message, latestGiven: latestGiven()! });
      emit(type, message);
    });
    const token = await tokenFor(t, 'admin');
    const socket = await open();
    expect(await joinAdmin(socket, token)).toBe('joined');
    const updates: DataUpdate[] = [];
    socket.on('dataUpdate', (u: DataUpdate) => updates.push(u));
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const burst = await Promise.all(Array.from({ length: 10 }, () => redeemNew(t, mac)));

    const calls = throttled.mock.calls.filter(([type]) => type === 'voucherUpdate').map(([, message]) => message);
    expect(calls.sort()).toEqual(burst.map((r) => `Voucher ${r.code} redeemed`).sort());
    // The trailing event carries the message of the last redemption of the burst.
    const latest = throttled.mock.calls.filter(([type]) => type === 'voucherUpdate').at(-1)![1];
    await eventually(
      async () => updates.some((u) => u.type === 'voucherUpdate' && u.message === latest),
      15_000,
      'the trailing event',
    );
    // An earlier test's redemption may still be waiting in the throttle's window when this one starts: its broadcast
    // is that test's, so only the burst's messages are compared.
    const ofBurst = new Set(calls);
    const received = updates.filter((u) => u.type === 'voucherUpdate' && ofBurst.has(u.message));
    const sentOfBurst = sent.filter((e) => ofBurst.has(e.message));
    expect(received.map((u) => u.message)).toEqual(sentOfBurst.map((e) => e.message));
    expect(received.at(-1)!.message).toBe(latest);
    // Every broadcast carries the latest message the throttle had been given, and none goes out twice.
    expect(sentOfBurst.filter((e) => e.message !== e.latestGiven)).toEqual([]);
    expect(new Set(sentOfBurst.map((e) => e.message)).size).toBe(sentOfBurst.length);
    socket.off('dataUpdate');
  });

  it('announces a settled order e-mail (the admin lists are not polled)', async () => {
    const socket = await open();
    expect(await joinAdmin(socket, await tokenFor(t, 'admin'))).toBe('joined');
    // Every e-mail status update: an e-mail of an earlier test's redemptions may settle first (shuffled order).
    const updates: DataUpdate[] = [];
    socket.on('dataUpdate', (u: DataUpdate) => updates.push(u));
    const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac));
    await eventually(
      async () =>
        updates.some((u) => u.type === 'emailStatus' && u.message === `Order e-mail for voucher ${r.code} sent`),
      10_000,
      'the e-mail status update of this redemption',
    );
    const [{ email_status }] = await t.db.query(`SELECT email_status FROM redemptions WHERE id = $1`, [r.id]);
    expect(email_status).toBe('sent');
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

  /** An access token of a fresh admin's session, made invalid in one way. */
  const badTokens: Array<[string, () => Promise<string>]> = [
    ['garbage', () => Promise.resolve('not-a-jwt')],
    [
      'forged (another secret)',
      async () => {
        const user = await createAdminUser(t);
        const { sessionId } = await issueToken(t, user.id);
        return new JwtService().signAsync(
          { sub: user.id, sid: sessionId, typ: 'access' },
          { secret: 'another-secret-of-at-least-32-bytes!!', algorithm: 'HS256', expiresIn: '15m' },
        );
      },
    ],
    [
      'expired',
      async () => {
        const user = await createAdminUser(t);
        const { sessionId } = await issueToken(t, user.id);
        const exp = Math.floor(Date.now() / 1000) - 60;
        return new JwtService().signAsync(
          { sub: user.id, sid: sessionId, typ: 'access', exp },
          { secret: t.config.jwtSecret, algorithm: 'HS256' },
        );
      },
    ],
    [
      'revoked session',
      async () => {
        const user = await createAdminUser(t);
        const { token } = await issueToken(t, user.id);
        const logout = await t.http().post('/api/admin/logout').set(bearer(token));
        expect(logout.status).toBe(200);
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
  ];

  /** Runs `fn` while events flow to the admins room; a signed-in admin beside it records them (the control). */
  async function whileEventsFlow(fn: (control: DataUpdate[]) => Promise<void>): Promise<void> {
    const control = await open();
    expect(await joinAdmin(control, await tokenFor(t, 'admin'))).toBe('joined');
    const received: DataUpdate[] = [];
    control.on('dataUpdate', (u: DataUpdate) => received.push(u));
    const stop = keepEmitting(t);
    try {
      await fn(received);
    } finally {
      stop();
    }
  }

  it.each(badTokens)(
    'a handshake with an invalid token (%s) is disconnected before any event',
    async (_name, makeToken) => {
      const token = await makeToken();
      await whileEventsFlow(async (control) => {
        const bad = watched(t, { token });
        await bad.gone;
        expect(bad.errors).toEqual([{ message: 'Invalid or expired token' }]);
        expect(bad.updates).toEqual([]);
        await eventually(async () => control.length > 0, 10_000, 'events reaching the signed-in admin');
      });
    },
  );

  it.each(badTokens)('join-admin with an invalid token (%s) is refused and disconnects', async (_name, makeToken) => {
    const token = await makeToken();
    const socket = await open();
    const error = new Promise((resolve) => socket.once('join-error', resolve));
    socket.emit('join-admin', { token });
    expect(await error).toEqual({ message: 'Invalid or expired token' });
    await disconnected(socket);
    expect(socket.connected).toBe(false);
  });

  it('refuses the handshake of a blocked address (blocked_ips, either kind), whatever token it brings', async () => {
    const blocked = t.app.get(BlockedIpService);
    await blocked.block('203.0.113.77', 'failed logins', 5);
    await blocked.block('203.0.113.78', `${GUESS_BLOCK_REASON}: 20 unknown codes`, 5);
    const token = await tokenFor(t, 'admin');
    const from = (ip: string) =>
      new Promise<'connected' | string>((resolve) => {
        const socket = io(t.baseUrl, {
          transports: ['websocket'],
          reconnection: false,
          forceNew: true,
          auth: { token },
          extraHeaders: { 'X-Forwarded-For': ip },
        });
        sockets.push(socket);
        socket.once('admin-joined', () => resolve('connected'));
        socket.once('connect_error', (err) => resolve(err.message));
      });
    expect(await from('203.0.113.77')).toBe('Access from your IP address has been blocked');
    expect(await from('203.0.113.78')).toBe('Access from your IP address has been blocked');
    // Any other address, the same token: joined.
    expect(await from('203.0.113.79')).toBe('connected');
  });

  it('a handshake without a token receives nothing until it joins; join-admin without one disconnects it', async () => {
    await whileEventsFlow(async (control) => {
      const anonymous = watched(t, {});
      await new Promise<void>((resolve) => anonymous.socket.once('connect', () => resolve()));
      const seenBefore = control.length;
      await eventually(
        async () => control.length >= seenBefore + 5,
        10_000,
        'events after the anonymous socket connected',
      );
      anonymous.socket.emit('join-admin', {});
      await anonymous.gone;
      expect(anonymous.errors).toEqual([{ message: 'Invalid or expired token' }]);
      expect(anonymous.updates).toEqual([]);
    });
  });

  it('the periodic re-check disconnects a joined socket once its session is revoked (logout), on its own timer', async () => {
    const user = await createAdminUser(t);
    const { token } = await issueToken(t, user.id);
    const kept = await open();
    expect(await joinAdmin(kept, await tokenFor(t, 'admin'))).toBe('joined');
    const socket = await open();
    expect(await joinAdmin(socket, token)).toBe('joined');
    const ended = new Promise((resolve) => socket.once('join-error', resolve));

    await t.http().post('/api/admin/logout').set(bearer(token)).expect(200);
    // Nothing calls the re-check here: its timer (every 200 ms in this suite) finds the revoked session.
    expect(await ended).toEqual({ message: 'Session ended' });
    await disconnected(socket);
    // The admin whose session is live stays, and still receives events.
    expect(kept.connected).toBe(true);
    const update = nextUpdate(kept, 'productUpdate');
    t.app.get(RealtimeService).emit('productUpdate', 'still here');
    expect(await update).toEqual({ type: 'productUpdate', message: 'still here' });
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

describe('Real time: a socket that never joins', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ REALTIME_JOIN_TIMEOUT_MS: '300' });
  });
  afterAll(() => t.close());

  it('is disconnected after REALTIME_JOIN_TIMEOUT_MS without receiving any event', async () => {
    const stop = keepEmitting(t);
    try {
      const idle = watched(t);
      await idle.gone;
      expect(idle.errors).toEqual([{ message: 'Invalid or expired token' }]);
      expect(idle.updates).toEqual([]);
    } finally {
      stop();
    }
  });

  it('a socket that joins in time stays', async () => {
    const token = await tokenFor(t, 'admin');
    const socket = await connect(t);
    try {
      expect(await joinAdmin(socket, token)).toBe('joined');
      // A socket opened after it and never joined is closed at its deadline: by then this one's has passed too.
      const idle = watched(t);
      await idle.gone;
      expect(socket.connected).toBe(true);
      const update = nextUpdate(socket, 'productUpdate', 10_000);
      t.app.get(RealtimeService).emit('productUpdate', 'still joined');
      expect(await update).toEqual({ type: 'productUpdate', message: 'still joined' });
    } finally {
      socket.disconnect();
    }
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

  it('delivers an event of a worker process (no socket.io endpoint of its own) to an admin of instance A', async () => {
    socket ??= await connect(a);
    expect(await joinAdmin(socket, await tokenFor(a, 'admin'))).toBe('joined');
    const worker = workerEventServer('redis://127.0.0.1:6379', prefix);
    try {
      const update = nextUpdate(socket, 'emailStatus', 10_000, 'Order e-mail for voucher W-1 sent');
      worker.server
        .to('admins')
        .emit('dataUpdate', { type: 'emailStatus', message: 'Order e-mail for voucher W-1 sent' });
      expect(await update).toEqual({ type: 'emailStatus', message: 'Order e-mail for voucher W-1 sent' });
    } finally {
      await worker.close();
    }
  });

  it('an event announced after the Redis clients closed (a job finishing during shutdown) is logged, not an unhandled rejection', async () => {
    const worker = workerEventServer('redis://127.0.0.1:6379', prefix);
    await worker.close();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      worker.server
        .to('admins')
        .emit('dataUpdate', { type: 'emailStatus', message: 'Order e-mail for voucher W-2 sent' });
      await eventually(
        async () => warn.mock.calls.some(([m]) => m === 'dataUpdate not published: Connection is closed.'),
        5000,
        'the failed publish logged',
      );
      // A rejection nobody handles is reported after the microtasks of the turn that rejected it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
      warn.mockRestore();
    }
  });
});
