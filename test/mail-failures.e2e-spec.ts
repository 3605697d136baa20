import { createServer, Server, Socket } from 'net';
import { AddressInfo } from 'net';
import { SMTPServer } from 'smtp-server';
import { startTestApp, TestApp } from './helpers/app';
import { productId, PRODUCTS } from './helpers/factories';
import { emailStatus, eventually, redeemNew } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

/**
 * SMTP providers failing the ways real ones do: a server that accepts the connection and never greets, and
 * one that refuses the sender or the message with a permanent 5xx. The e-mail goes out through the fallback,
 * or the redemption ends `failed` with the reason logged; it never stays `pending`.
 */

/** A TCP server that accepts connections and never says a word (a hung SMTP greeting). */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An SMTP server that answers a permanent 5xx at one step of the transaction. */
async function refusingServer(step: 'MAIL FROM' | 'DATA'): Promise<{ url: string; close(): Promise<void> }> {
  const refuse = (message: string) => Object.assign(new Error(message), { responseCode: 554 });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      callback(step === 'MAIL FROM' ? refuse('5.7.1 Sender rejected by policy') : undefined);
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback(step === 'DATA' ? refuse('5.6.0 Message content rejected') : undefined));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const logsOf = (t: TestApp, redemptionId: string) =>
  t.db.query(`SELECT provider, status, error FROM email_logs WHERE redemption_id = $1 ORDER BY provider, created_at`, [
    redemptionId,
  ]);

describe('e-mail when the primary SMTP provider misbehaves', () => {
  let fallback: TestSmtpServer;

  beforeAll(async () => {
    fallback = await startSmtpServer();
  });
  afterAll(() => fallback.close());

  it('a primary that accepts the connection and never greets: the fallback delivers once the configured timeout has passed', async () => {
    const primary = await silentServer();
    // 1 s instead of the default 10 s; nodemailer's own greeting timeout would be 30 s.
    const t = await startTestApp({ SMTP_URL: primary.url, SMTP_FALLBACK_URL: fallback.url, SMTP_TIMEOUT_MS: '1000' });
    try {
      const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
      const before = fallback.messages.length;
      const started = Date.now();
      const r = await redeemNew(t, mac, { email: 'silent-primary@example.com' });
      await fallback.waitFor(before + 1, 25_000);
      // Not before the primary's timeout: the primary was waited for, then given up on.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 'e-mail sent');
      const logs = await logsOf(t, r.id);
      expect(logs.map((l: { provider: string; status: string }) => [l.provider, l.status])).toEqual([
        ['fallback', 'sent'],
        ['primary', 'failed'],
      ]);
      expect(logs.find((l: { provider: string }) => l.provider === 'primary').error).toMatch(/greeting/i);
    } finally {
      await t.close();
      await primary.close();
    }
  });

  it('a primary that never greets and no fallback: the redemption ends failed with the timeout logged, never pending', async () => {
    const primary = await silentServer();
    const t = await startTestApp({
      SMTP_URL: primary.url,
      SMTP_TIMEOUT_MS: '500',
      MAIL_ATTEMPTS: '2',
      MAIL_BACKOFF_MS: '100',
    });
    try {
      const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
      const r = await redeemNew(t, mac, { email: 'silent-only@example.com' });
      await eventually(async () => (await emailStatus(t, r.id)) === 'failed', 30_000, 'e-mail failed');
      const logs = await logsOf(t, r.id);
      expect(logs).toHaveLength(2);
      for (const log of logs) {
        expect(log).toMatchObject({ provider: 'primary', status: 'failed', error: expect.stringMatching(/greeting/i) });
      }
    } finally {
      await t.close();
      await primary.close();
    }
  });

  it.each(['MAIL FROM', 'DATA'] as const)(
    'a primary that answers 5xx to %s: the fallback delivers at once',
    async (step) => {
      const primary = await refusingServer(step);
      const t = await startTestApp({ SMTP_URL: primary.url, SMTP_FALLBACK_URL: fallback.url });
      try {
        const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
        const email = `refused-${step.replace(' ', '-').toLowerCase()}@example.com`;
        const r = await redeemNew(t, mac, { email });
        await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 15_000, 'e-mail sent');
        expect(fallback.messages.filter((m) => JSON.stringify(m.to).includes(email))).toHaveLength(1);
        const logs = await logsOf(t, r.id);
        expect(logs.find((l: { provider: string }) => l.provider === 'primary')).toMatchObject({
          status: 'failed',
          error: expect.stringMatching(/554/),
        });
      } finally {
        await t.close();
        await primary.close();
      }
    },
  );

  it.each(['MAIL FROM', 'DATA'] as const)(
    'a primary that answers 5xx to %s and no fallback: the redemption ends failed with the reason, never pending',
    async (step) => {
      const primary = await refusingServer(step);
      const t = await startTestApp({ SMTP_URL: primary.url, MAIL_ATTEMPTS: '2', MAIL_BACKOFF_MS: '100' });
      try {
        const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
        const r = await redeemNew(t, mac, { email: 'always-refused@example.com' });
        await eventually(async () => (await emailStatus(t, r.id)) === 'failed', 20_000, 'e-mail failed');
        const logs = await logsOf(t, r.id);
        expect(logs).toHaveLength(2);
        for (const log of logs) {
          expect(log).toMatchObject({ provider: 'primary', status: 'failed', error: expect.stringMatching(/554/) });
        }
      } finally {
        await t.close();
        await primary.close();
      }
    },
  );
});
