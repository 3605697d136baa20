import { AddressInfo } from 'net';
import { SMTPServer } from 'smtp-server';

export interface Smtp {
  port: number;
  /** While true every recipient is refused with 451 (a provider's outage). */
  refusing: boolean;
  /** Recipient → how many messages arrived for them. */
  received: Map<string, number>;
  /** Recipient → when (Date.now()) their first message was accepted, at the end of its DATA. */
  firstAt: Map<string, number>;
  close(): Promise<void>;
}

/** An SMTP server in the benchmark's process on a free port: it accepts every message (unless refusing). */
export async function startSmtp(): Promise<Smtp> {
  const state = { refusing: false, received: new Map<string, number>(), firstAt: new Map<string, number>() };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (state.refusing) {
        const err = new Error('Service temporarily unavailable') as Error & { responseCode: number };
        err.responseCode = 451;
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        const at = Date.now();
        for (const rcpt of session.envelope.rcptTo) {
          const to = rcpt.address.toLowerCase();
          state.received.set(to, (state.received.get(to) ?? 0) + 1);
          if (!state.firstAt.has(to)) state.firstAt.set(to, at);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return Object.assign(state, {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as Smtp;
}
