import { createServer, IncomingMessage, ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';
import { insecureTargetList } from '../webhook/webhook-url-guard';
import { callMarketplace, MarketplaceCall } from './marketplace-http';

/**
 * The marketplace calls' kept connections, against a real server on loopback: calls share a connection, and one the
 * marketplace closed as it was reused is sent again once, on a new one.
 */
describe('callMarketplace: kept connections', () => {
  const servers: Array<ReturnType<typeof createServer>> = [];
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  /** A server answering 200 `{n}`; `drop(nth request of its connection)` closes the connection instead. */
  async function start(drop: (nthOnSocket: number) => boolean = () => false) {
    const sockets = new Set<Socket>();
    const seen = new WeakMap<Socket, number>();
    let answered = 0;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const n = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, n);
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => {
        if (drop(n)) return req.socket.destroy();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ n: ++answered }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const call: MarketplaceCall = {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mp`,
      secret: 'mksec_test',
      policy: { insecureTargets: insecureTargetList(['127.0.0.1']) },
      timeoutMs: 2_000,
      now: () => new Date(),
    };
    return { call, connections: () => sockets.size, answered: () => answered };
  }

  it('sends one call after another over one connection', async () => {
    const mp = await start();
    for (let i = 0; i < 3; i++) {
      const answer = await callMarketplace(mp.call, 'POST', '/vouchers/check', '{"code":"A"}');
      expect(answer.status).toBe(200);
    }
    expect(mp.connections()).toBe(1);
  });

  it('sends a call again, once, on a new connection when the kept one is closed under it', async () => {
    // Every connection's second request is dropped: the second call's first try fails on the kept connection.
    const mp = await start((n) => n === 2);
    expect((await callMarketplace(mp.call, 'POST', '/vouchers/check', '{"code":"A"}')).status).toBe(200);
    const second = await callMarketplace(mp.call, 'POST', '/vouchers/check', '{"code":"B"}');
    expect([second.status, JSON.parse(second.body)]).toEqual([200, { n: 2 }]);
    expect(mp.connections()).toBe(2);
  });

  it('does not send again a call whose new connection fails: the error is the answer', async () => {
    const mp = await start(() => true);
    await expect(callMarketplace(mp.call, 'POST', '/vouchers/check', '{}')).rejects.toThrow('socket hang up');
    expect(mp.connections()).toBe(1);
  });
});
