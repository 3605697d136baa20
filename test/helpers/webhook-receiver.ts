import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';

export interface ReceivedHook {
  headers: IncomingMessage['headers'];
  body: string;
  /** What the receiver answered (undefined: it never answered). */
  answered?: number;
  /** The request is still open: answered, or given up by the sender, it is false. */
  open: boolean;
}

/** `answer` decides each request's reply: a status (and body, headers such as a redirect's `location`), or 'hang'. */
export type HookAnswer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * The configuration that lets the app reach the in-test receivers (http:// on 127.0.0.1): without it, as in production,
 * only public https receivers are accepted (docs/security.md).
 */
export const RECEIVERS_ON_LOOPBACK = { WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.1' };

/** An in-test webhook receiver on 127.0.0.1 (port 0) that records every request and answers as told. */
export async function startReceiver(answer: (n: number, hook: ReceivedHook) => HookAnswer = () => ({ status: 200 })) {
  const received: ReceivedHook[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hook: ReceivedHook = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), open: true };
      res.on('close', () => (hook.open = false));
      received.push(hook);
      const reply = answer(received.length, hook);
      if (reply === 'hang') return;
      hook.answered = reply.status;
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers }).end(reply.body ?? 'ok');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
