import { ParsedMail } from 'mailparser';
import { startTestApp, TestApp } from './helpers/app';
import { productId, PRODUCTS } from './helpers/factories';
import { expectNothingPartial } from './helpers/failures';
import { watchJobs } from './helpers/jobs';
import { emailStatus, eventually, redeemNew } from './helpers/redemptions';
import { randomHex } from './helpers/seed';
import { DataAnswer, startSmtpServer, TestSmtpServer } from './helpers/smtp';

/**
 * Issue 27: the primary SMTP provider failing in the middle of the transaction: silent after the message (DATA),
 * 421 or 451 to it, 550 to the recipient, or the connection cut after it took the message but before its 250. The
 * fallback delivers, or the e-mail ends `failed`; each e-mail goes out once, or, where the primary took the message
 * and its 250 never came, twice with one Message-ID (docs/operations.md "Order e-mail delivery").
 */
describe('failure paths: SMTP failing mid-transaction', () => {
  jest.setTimeout(120_000);
  let primary: TestSmtpServer;
  let fallback: TestSmtpServer;
  let t: TestApp;
  let mac: string;
  /** How the primary answers a whole message, and whether both refuse the recipient. */
  let primaryAnswer: () => DataAnswer = () => 'accept';
  let refuseRecipients = false;
  const unknownUser = { code: 550, message: '5.1.1 Recipient address rejected: User unknown' };

  beforeAll(async () => {
    primary = await startSmtpServer({
      onMessage: () => primaryAnswer(),
      onRcptTo: () => (refuseRecipients ? unknownUser : undefined),
    });
    fallback = await startSmtpServer({ onRcptTo: () => (refuseRecipients ? unknownUser : undefined) });
    // A silent server is given up on after 3 × SMTP_TIMEOUT_MS (nodemailer's socket timeout).
    t = await startTestApp({
      SMTP_URL: primary.url,
      SMTP_FALLBACK_URL: fallback.url,
      SMTP_TIMEOUT_MS: '300',
      MAIL_ATTEMPTS: '2',
      MAIL_BACKOFF_MS: '100',
    });
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    primaryAnswer = () => 'accept';
    refuseRecipients = false;
  });
  afterAll(async () => {
    await t?.close();
    await primary?.close();
    await fallback?.close();
  });

  const to = (email: string) => (m: ParsedMail) => [m.to].flat().some((a) => a?.value.some((v) => v.address === email));
  const copies = (email: string) => [...primary.messages.filter(to(email)), ...fallback.messages.filter(to(email))];
  /** The e-mail log of a redemption, as provider:status, sorted (one attempt's rows share their time). */
  const logsOf = async (id: string) =>
    (
      await t.db.query(`SELECT provider, status FROM email_logs WHERE redemption_id = $1 ORDER BY provider, status`, [
        id,
      ])
    ).map((l: { provider: string; status: string }) => `${l.provider}:${l.status}`);

  /** Redeems, waits for the e-mail's final status and for every job and sweep that could still send it. */
  async function redeemAndSettle(email: string, final: 'sent' | 'failed') {
    const jobs = watchJobs(t);
    const r = await redeemNew(t, mac, { email }, 'SMTPF');
    await eventually(async () => (await emailStatus(t, r.id)) === final, 30_000, `the e-mail ${final}`);
    await jobs.settled();
    return r;
  }

  it.each([
    ['silent after the message (DATA)', (): DataAnswer => 'stall', /timeout/i],
    ['421 to the message', (): DataAnswer => ({ code: 421, message: '4.3.2 Service shutting down' }), /421/],
    ['451 to the message', (): DataAnswer => ({ code: 451, message: '4.3.0 Temporary local problem' }), /451/],
  ])('a primary %s: the fallback delivers it, once', async (_what, answer, reason) => {
    primaryAnswer = answer;
    const email = `mid-${randomHex(3)}@example.com`;
    const r = await redeemAndSettle(email, 'sent');
    expect(primary.messages.filter(to(email))).toHaveLength(0);
    expect(fallback.messages.filter(to(email)).map((m) => m.messageId)).toEqual([`<redemption-${r.id}-0@localhost>`]);
    expect(await logsOf(r.id)).toEqual(['fallback:sent', 'primary:failed']);
    const [primaryLog] = await t.db.query(
      `SELECT error FROM email_logs WHERE redemption_id = $1 AND provider = 'primary'`,
      [r.id],
    );
    expect(primaryLog.error).toMatch(reason);
    await expectNothingPartial(t.db);
  });

  it('the recipient refused (550) by both: failed after its attempts, nothing delivered, never pending', async () => {
    refuseRecipients = true;
    const email = `unknown-${randomHex(3)}@example.com`;
    const r = await redeemAndSettle(email, 'failed');
    expect(copies(email)).toHaveLength(0);
    expect(await logsOf(r.id)).toEqual(['fallback:failed', 'fallback:failed', 'primary:failed', 'primary:failed']);
    await expectNothingPartial(t.db);
  });

  it('the primary takes the message and the connection drops before its 250: the fallback sends it too, with the same Message-ID', async () => {
    primaryAnswer = () => 'accept-then-drop';
    const email = `dropped-${randomHex(3)}@example.com`;
    const r = await redeemAndSettle(email, 'sent');
    const all = copies(email);
    expect(all).toHaveLength(2);
    expect(new Set(all.map((m) => m.messageId))).toEqual(new Set([`<redemption-${r.id}-0@localhost>`]));
    expect(await logsOf(r.id)).toEqual(['fallback:sent', 'primary:failed']);
    await expectNothingPartial(t.db);
  });
});
