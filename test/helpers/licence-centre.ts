import { startTestApp, TestApp } from './app';
import { bearer, tokenFor } from './auth';
import { addCodes, licenseManagedProduct, productId, PRODUCTS, randomCode, redeemBody } from './factories';
import { eventually } from './redemptions';
import { randomInt } from './seed';
import { startSmtpServer, TestSmtpServer } from './smtp';

/** The one answer of `POST /api/customer/access`. */
export const ACCESS_ANSWER = {
  message: 'If licences were issued to this e-mail address, a sign-in link is on its way.',
};
/** What the test apps of the licence-centre suites set as PUBLIC_URL: the links in the e-mails point there. */
export const CENTRE_PUBLIC_URL = 'https://licences.example.com';

/** Six random letters (the file's seeded sequence): names must be letters, and unique enough to grep a dump for. */
export const letters = () => Array.from({ length: 6 }, () => 'abcdefghijklmnopqrstuvwxyz'[randomInt(26)]).join('');

/** What a licence-centre suite runs on: the app, its SMTP server, an admin, a licence-managed product and the Mac one. */
export interface LicenceCentre {
  t: TestApp;
  smtp: TestSmtpServer;
  admin: Record<string, string>;
  /** A licence-managed product of its own (`<name> <random>`). */
  windows: string;
  /** The seeded Mac product (a product key, no pool). */
  mac: string;
  close(): Promise<void>;
}

/**
 * The shared setup of the licence-centre suites (test/customer-centre.e2e-spec.ts, test/customer-erasure.e2e-spec.ts):
 * an in-test SMTP server, the app sending through it with PUBLIC_URL = CENTRE_PUBLIC_URL, proxies trusted on
 * loopback (tests pick the client address with X-Forwarded-For) and no country blocked; `env` adds the suite's own.
 */
export async function startLicenceCentre(name: string, env: Record<string, string> = {}): Promise<LicenceCentre> {
  const smtp = await startSmtpServer();
  let t: TestApp | undefined;
  try {
    t = await startTestApp({
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      PUBLIC_URL: CENTRE_PUBLIC_URL,
      ...env,
    });
    const app = t;
    return {
      t: app,
      smtp,
      admin: bearer(await tokenFor(app, 'admin')),
      windows: await licenseManagedProduct(app.db, `${name} ${randomCode('P')}`),
      mac: await productId(app.db, PRODUCTS.homeBusinessMac),
      close: async () => {
        await app.close();
        await smtp.close();
      },
    };
  } catch (err) {
    await t?.close();
    await smtp.close();
    throw err;
  }
}

/**
 * The customer's side of the licence centre through the real API and the in-test SMTP server (docs/product.md,
 * "Licence centre"): redeem, ask for a link, read it from the delivered e-mail, open a session. Takes getters, so a
 * suite can make it before its `beforeAll` starts the app and the SMTP server.
 */
export function licenceCentreClient(app: () => TestApp, mail: () => TestSmtpServer) {
  const t = {
    get db() {
      return app().db;
    },
    http: () => app().http(),
  };
  let nextAddress = 1;
  const newIp = () => `203.0.113.${nextAddress++}`;
  const messagesTo = (email: string) => mail().messages.filter((m) => JSON.stringify(m.to ?? '').includes(email));
  const signInMails = (email: string) => messagesTo(email).filter((m) => m.subject?.startsWith('Sign in'));
  const redeem = async (product: string, body: Partial<ReturnType<typeof redeemBody>>, ip = '198.51.100.10') => {
    const [code] = await addCodes(t.db, product, [randomCode('LC')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', ip)
      .send(redeemBody({ voucherCode: code, ...body }))
      .expect(201);
    const [row] = await t.db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    return { code, id: row.id as string };
  };
  const askLink = (email: string, ip = '198.51.100.20') =>
    t.http().post('/api/customer/access').set('X-Forwarded-For', ip).send({ email });
  /** The link of the `count`-th sign-in e-mail to `email`, read from the delivered message. */
  async function linkFromMail(email: string, count: number): Promise<{ url: string; token: string }> {
    await eventually(async () => signInMails(email).length >= count, 20_000, `link ${count} to ${email}`);
    const mail = signInMails(email)[count - 1];
    const url = /https:\/\/licences\.example\.com\/my-licences\?token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
    if (!url) throw new Error(`no link in ${mail.text}`);
    return { url: url[0], token: url[1] };
  }
  const session = (token: string) => t.http().post('/api/customer/session').send({ token });
  /** Asks for a link (from `ip`, a fresh address unless given), opens it: the customer's bearer header. */
  async function signIn(email: string, ip = newIp()): Promise<Record<string, string>> {
    const before = signInMails(email).length;
    await askLink(email, ip).expect(202, ACCESS_ANSWER);
    const { token } = await linkFromMail(email, before + 1);
    const res = await session(token).expect(200);
    return bearer(res.body.customerToken);
  }
  return { newIp, messagesTo, redeem, askLink, linkFromMail, session, signIn };
}
