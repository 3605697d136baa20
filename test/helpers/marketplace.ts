import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';
import {
  marketplaceSignature,
  verifyMarketplaceSignature,
} from '../../backend/src/modules/marketplace/marketplace-signature';

/** A call the service made to the marketplace, as received. */
export interface MarketplaceCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown>;
  /** The call carried a valid, fresh signature under the connection's secret. */
  signed: boolean;
}

/** What the marketplace answers a call: a status and JSON body, or it never answers ('hang'). */
export type MarketplaceAnswer = { status: number; body?: unknown } | 'hang';

/**
 * The marketplace side of docs/product.md §24 on 127.0.0.1 (a real HTTP server, port 0): it records every call with
 * whether its signature checks out, answers the live check from `statuses` (default `valid`), acknowledges reports and
 * refunds, and serves `events` to a pull by cursor (the index after the last one served). `answer` overrides any call's
 * reply. `send` signs and pushes an event to the service as the marketplace does.
 */
export async function startMarketplace(answer?: (call: MarketplaceCall) => MarketplaceAnswer | undefined) {
  const calls: MarketplaceCall[] = [];
  const statuses = new Map<string, string>();
  const events: unknown[] = [];
  const sockets = new Set<Socket>();
  let secret = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://marketplace');
      const now = Math.floor(Date.now() / 1000);
      const header = (name: string) => req.headers[name] as string | undefined;
      const call: MarketplaceCall = {
        method: req.method ?? '',
        path: `${url.pathname}${url.search}`,
        headers: req.headers,
        body,
        json: body ? (JSON.parse(body) as Record<string, unknown>) : {},
        signed: verifyMarketplaceSignature(secret, header('x-timestamp'), header('x-signature'), body, now),
      };
      calls.push(call);
      const reply = answer?.(call) ?? defaultAnswer(call, url);
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body ?? {}));
    });
  });
  const defaultAnswer = (call: MarketplaceCall, url: URL): MarketplaceAnswer => {
    if (!call.signed) return { status: 401, body: { message: 'Invalid signature' } };
    if (call.method === 'POST' && url.pathname.endsWith('/vouchers/check')) {
      return { status: 200, body: { status: statuses.get(String(call.json.code)) ?? 'valid' } };
    }
    if (call.method === 'POST' && (url.pathname.endsWith('/redemptions') || url.pathname.endsWith('/refunds'))) {
      return { status: 200, body: { ok: true } };
    }
    if (call.method === 'GET' && url.pathname.endsWith('/events')) {
      const after = Number(url.searchParams.get('after') || 0);
      return { status: 200, body: { events: events.slice(after), cursor: String(events.length) } };
    }
    return { status: 404, body: {} };
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/mp`,
    calls,
    statuses,
    events,
    /** The connection's secret, once the service answered it. */
    useSecret: (s: string) => (secret = s),
    /** Calls to a path (`/mp/redemptions`…), signed or not. */
    callsTo: (path: string) => calls.filter((c) => c.path.startsWith(`/mp${path}`)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TestMarketplace = Awaited<ReturnType<typeof startMarketplace>>;

/** The headers of a signed request: `X-Timestamp` (now, or `at` unix seconds) and its `X-Signature`. */
export function signed(secret: string, body: string, at = Math.floor(Date.now() / 1000)) {
  return {
    'Content-Type': 'application/json',
    'X-Timestamp': String(at),
    'X-Signature': marketplaceSignature(secret, at, body),
  };
}
