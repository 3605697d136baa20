import { createServer, Server } from 'http';
import { AddressInfo, createServer as createTcpServer, Server as TcpServer, Socket } from 'net';
import { postWebhook } from './webhook-http';

/**
 * A black-holing receiver holds a worker for WEBHOOK_TIMEOUT_MS at most, whichever phase it stalls in; a redirect is
 * an answer (the delivery counts it failed), not a hop.
 */
describe('postWebhook: timeouts and redirects', () => {
  const servers: Array<Server | TcpServer> = [];
  const sockets = new Set<Socket>();
  afterEach(async () => {
    sockets.forEach((s) => s.destroy());
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });
  const listen = async <T extends Server | TcpServer>(server: T) => {
    server.on('connection', (socket: Socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  const post = (port: number, timeoutMs: number) =>
    postWebhook(
      { url: new URL(`http://127.0.0.1:${port}/hook`), address: '127.0.0.1', family: 4 },
      {},
      '{}',
      timeoutMs,
    );
  const timed = async (promise: Promise<unknown>) => {
    const started = Date.now();
    const error = await promise.then(
      () => null,
      (err: Error) => err,
    );
    return { error, ms: Date.now() - started };
  };

  it('gives up on a receiver that accepts the connection and never reads or answers', async () => {
    const port = await listen(createTcpServer(() => undefined));
    const { error, ms } = await timed(post(port, 300));
    expect(error?.message).toBe('No answer within 300 ms');
    expect(ms).toBeLessThan(2000);
  });

  it('gives up on a receiver that answers its headers and then trickles the body forever', async () => {
    const port = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(drip));
      }),
    );
    const { error, ms } = await timed(post(port, 300));
    expect(error?.message).toBe('No answer within 300 ms');
    expect(ms).toBeLessThan(2000);
  });

  it("answers a redirect's status and never follows it", async () => {
    let followed = 0;
    const target = await listen(createServer((_req, res) => void (followed++, res.end('ok'))));
    const port = await listen(
      createServer((_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${target}/hook` }).end('moved')),
    );
    await expect(post(port, 2000)).resolves.toEqual({ status: 307, body: 'moved' });
    expect(followed).toBe(0);
  });

  it('gives up on a receiver that sends its headers and then nothing', async () => {
    const port = await listen(
      createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders()),
    );
    const { error, ms } = await timed(post(port, 300));
    expect(error?.message).toBe('No answer within 300 ms');
    expect(ms).toBeLessThan(2000);
  });
});
