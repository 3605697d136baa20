import { AddressInfo } from 'net';
import { ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, SMTPServerSession } from 'smtp-server';

export interface TestSmtpServer {
  url: string;
  port: number;
  messages: ParsedMail[];
  /** Resolves when `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a free port that keeps every message it accepts, parsed. `onConnect` runs before a
 * connection is greeted (the client waits for it): e.g. to find which process holds the connection.
 */
export async function startSmtpServer(
  options: { onConnect?: (session: SMTPServerSession) => Promise<void> } = {},
): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(session, callback) {
      if (!options.onConnect) return callback();
      options.onConnect(session).then(() => callback(), callback);
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          waiters.splice(0).forEach((wake) => wake());
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
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
