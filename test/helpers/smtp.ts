import { AddressInfo, Socket } from 'net';
import { ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, SMTPServerAddress, SMTPServerSession } from 'smtp-server';

/**
 * How the server answers a message it received whole (after the client's final "."):
 * - 'accept': kept, 250 (the default);
 * - 'accept-then-drop': kept (the server took responsibility for it), then the connection is cut before the 250
 *   reaches the client: the client cannot know the message went through;
 * - 'stall': never answered (the client's socket timeout ends it); not kept;
 * - { code, message }: refused with this SMTP reply (421, 451, 554 …); not kept.
 */
export type DataAnswer = 'accept' | 'accept-then-drop' | 'stall' | { code: number; message: string };

export interface TestSmtpServer {
  url: string;
  port: number;
  messages: ParsedMail[];
  /**
   * Connection errors the server saw (a client killed or cut mid-message: ECONNRESET). A real server logs and
   * carries on; without a listener, smtp-server's 'error' event would throw in the test process instead.
   */
  connectionErrors: Error[];
  /** Resolves when `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a free port that keeps every message it accepts, parsed. `onConnect` runs before a
 * connection is greeted (the client waits for it): e.g. to find which process holds the connection.
 */
export async function startSmtpServer(
  options: {
    onConnect?: (session: SMTPServerSession) => Promise<void>;
    /** Decides the answer to each message received whole (see DataAnswer); it may also act first (kill a process). */
    onMessage?: (mail: ParsedMail, session: SMTPServerSession) => DataAnswer | Promise<DataAnswer>;
    /** A recipient refused at RCPT TO with this reply (e.g. 550), or undefined to accept it. */
    onRcptTo?: (address: SMTPServerAddress) => { code: number; message: string } | undefined;
  } = {},
): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  const waiters: Array<() => void> = [];
  /** Open client connections by their remote port (session.remotePort), so a connection can be cut. */
  const sockets = new Map<number, Socket>();
  const refusal = ({ code, message }: { code: number; message: string }) =>
    Object.assign(new Error(message), { responseCode: code });
  const keep = (mail: ParsedMail) => {
    messages.push(mail);
    waiters.splice(0).forEach((wake) => wake());
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(session, callback) {
      if (!options.onConnect) return callback();
      options.onConnect(session).then(() => callback(), callback);
    },
    onRcptTo(address, _session, callback) {
      const refused = options.onRcptTo?.(address);
      callback(refused ? refusal(refused) : undefined);
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          const answer = options.onMessage ? await options.onMessage(mail, session) : 'accept';
          if (answer === 'stall') return;
          if (answer === 'accept' || answer === 'accept-then-drop') keep(mail);
          if (answer === 'accept-then-drop') return sockets.get(session.remotePort)?.destroy();
          callback(typeof answer === 'object' ? refusal(answer) : undefined);
        })
        .catch(callback);
    },
  });
  const connectionErrors: Error[] = [];
  server.on('error', (err) => connectionErrors.push(err));
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort!;
    sockets.set(port, socket);
    socket.once('close', () => sockets.delete(port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    connectionErrors,
    waitFor(count, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`expected ${count} message(s), got ${messages.length}`)),
          timeoutMs,
        );
        const check = () => {
          if (messages.length >= count) {
            clearTimeout(deadline);
            resolve(messages);
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    close: () => {
      // A stalled connection would hold close() until the client gives up.
      for (const socket of sockets.values()) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An SMTP provider that is down: a port whose server drops every connection at once. It stays bound for the
 * whole test run (unref'd), so no other suite's server can take the port and answer in its place, as a
 * port merely closed again could be.
 */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('net');
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return (server.address() as AddressInfo).port;
}

/** A port free at this moment, for a server the test starts itself (redis-server, the app, PostgreSQL). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
