import { ParsedMail } from 'mailparser';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import { BuiltStack, expectNothingPartial, startBuiltStack } from './helpers/failures';
import { httpFrom } from './helpers/processes';
import { eventually } from './helpers/redemptions';
import { DataAnswer, startSmtpServer, TestSmtpServer } from './helpers/smtp';

/**
 * Issue 27, the delivery guarantee (docs/operations.md "Order e-mail delivery"): an order e-mail goes out at least
 * once; a second copy only when the sender dies between the SMTP server's acceptance and the status write, and then
 * with the same Message-ID (`<redemption-<id>-<resends>@<domain>>`), so every mail system sees one message.
 * The sender here is the API's forked jobs worker (the built app without REDIS_URL), killed with SIGKILL while the
 * in-test SMTP server holds the message.
 */
describe('failure paths: the sender dies between SMTP acceptance and the status write', () => {
  jest.setTimeout(120_000);
  let stack: BuiltStack;
  let smtp: TestSmtpServer;
  let product: string;
  /** What the SMTP server does with the next message (then back to a plain accept). */
  let next: (() => DataAnswer) | undefined;

  beforeAll(async () => {
    smtp = await startSmtpServer({
      onMessage: () => {
        const act = next ?? (() => 'accept');
        next = undefined;
        return act();
      },
    });
    stack = await startBuiltStack({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Office Licences <orders@shop.example>',
      // A dead worker's claim lapses quickly and the next worker's sweep takes the row again.
      MAIL_CLAIM_SECONDS: '2',
      MAIL_SWEEP_INTERVAL_MS: '500',
      MAIL_SWEEP_AFTER_MS: '1000',
      MAIL_BACKOFF_MS: '200',
    });
    product = await licenseManagedProduct(stack.db, `Crash ${randomCode('P')}`);
    for (let i = 0; i < 4; i++) await addLicenseKey(stack.db, product, `CRASH-${randomCode('K')}`);
  });

  afterAll(async () => {
    await stack?.close();
    await smtp?.close();
  });

  const redeem = async () => {
    const [code] = await addCodes(stack.db, product, [randomCode('CRASH')]);
    const body = redeemBody({ voucherCode: code });
    const res = await httpFrom('127.0.0.1', `${stack.url}/api/redeem-voucher`, { body });
    expect(res.status).toBe(201);
    const [row] = await stack.db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    return { id: row.id as string, code, email: body.email };
  };
  const copiesTo = (email: string) =>
    smtp.messages.filter((m: ParsedMail) => [m.to].flat().some((a) => a?.value.some((v) => v.address === email)));
  const status = async (id: string) =>
    (await stack.db.query(`SELECT email_status FROM redemptions WHERE id = $1`, [id]))[0].email_status;
  const killWorker = () => {
    const pid = stack.workerPid();
    if (!pid) throw new Error('no jobs worker to kill');
    process.kill(pid, 'SIGKILL');
    return pid;
  };
  const newWorker = (dead: number) =>
    eventually(
      async () => {
        const pid = stack.workerPid();
        return pid !== undefined && pid !== dead ? pid : undefined;
      },
      30_000,
      'the API to start another jobs worker',
    );

  it('killed while the server holds the message (before its 250): one more copy, the same Message-ID, then sent', async () => {
    const worker = await eventually(async () => stack.workerPid(), 30_000, 'the jobs worker');
    let killed: number | undefined;
    // The server has the whole message and keeps it; the worker dies before it can read the 250.
    next = () => {
      killed = killWorker();
      return 'accept';
    };
    const { id, email } = await redeem();
    await eventually(async () => killed, 30_000, 'the worker to be killed during DATA');
    expect(killed).toBe(worker);
    await newWorker(worker);
    // The claim lapses, the new worker's sweep sends it again: the same message.
    await eventually(async () => (await status(id)) === 'sent', 60_000, 'the e-mail to be marked sent');
    const copies = copiesTo(email);
    expect(copies).toHaveLength(2);
    expect(copies.map((m) => m.messageId)).toEqual([
      `<redemption-${id}-0@shop.example>`,
      `<redemption-${id}-0@shop.example>`,
    ]);
    const logs = await stack.db.query(`SELECT status FROM email_logs WHERE redemption_id = $1`, [id]);
    expect(logs).toEqual([{ status: 'sent' }]);
    await expectNothingPartial(stack.db);
  });

  it('killed just after the 250: at most one more copy, with the same Message-ID', async () => {
    const worker = await eventually(async () => stack.workerPid(), 30_000, 'the jobs worker');
    let killed: number | undefined;
    next = () => {
      // The 250 is written right after this answer; the worker dies as it reads it (or just before its status write).
      setImmediate(() => (killed = killWorker()));
      return 'accept';
    };
    const { id, email } = await redeem();
    await eventually(async () => killed, 30_000, 'the worker to be killed');
    await newWorker(worker);
    await eventually(async () => (await status(id)) === 'sent', 60_000, 'the e-mail to be marked sent');
    const copies = copiesTo(email);
    expect(copies.length).toBeGreaterThanOrEqual(1);
    expect(copies.length).toBeLessThanOrEqual(2);
    expect(new Set(copies.map((m) => m.messageId))).toEqual(new Set([`<redemption-${id}-0@shop.example>`]));
    await expectNothingPartial(stack.db);
  });

  it('without a fault one copy; a resend the customer asks for is a new message (the next resend number)', async () => {
    const { id, code, email } = await redeem();
    await eventually(async () => (await status(id)) === 'sent', 30_000, 'the e-mail to be sent');
    expect(copiesTo(email).map((m) => m.messageId)).toEqual([`<redemption-${id}-0@shop.example>`]);

    const res = await httpFrom('127.0.0.1', `${stack.url}/api/resend-order-email`, {
      body: { voucherCode: code, email },
    });
    expect(res.status).toBe(202);
    await eventually(async () => copiesTo(email).length === 2, 30_000, 'the resent e-mail');
    expect(copiesTo(email).map((m) => m.messageId)).toEqual([
      `<redemption-${id}-0@shop.example>`,
      `<redemption-${id}-1@shop.example>`,
    ]);
    await eventually(async () => (await status(id)) === 'sent', 30_000, 'the resend to be marked sent');
    await expectNothingPartial(stack.db);
  });
});
