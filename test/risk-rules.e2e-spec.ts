import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, licenseManagedProduct, randomCode, redeemBody, RedeemBody } from './helpers/factories';

const SUPPORT = 'help@shop.example';
const REFUSED = `We could not complete this redemption. Please contact support at ${SUPPORT}.`;
const OFF = {
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
};
type Rules = typeof OFF;

let serial = 0;
/** A fresh address per test: the counting rules and the guessing block count per address. */
const nextIp = () => `198.51.100.${++serial}`;
const uniqueEmail = () => `risk.${Date.now().toString(36)}.${++serial}@example.com`;

/**
 * The risk rules (docs/product.md §25.1) through the real API and database: the settings and blocklist routes, and each
 * rule's "off" and "refuse" outcomes at redeem (refused: 403 with the support address, the code unredeemed, an
 * audit row naming the rule, a guess only for an unknown code).
 */
describe('Risk rules: settings, blocklist and refusals', () => {
  let t: TestApp;
  let admin: { Authorization: string };

  beforeAll(async () => {
    t = await startTestApp({
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      SUPPORT_EMAIL: SUPPORT,
      REDEEM_GUESS_LIMIT: '2',
    });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterEach(async () => {
    await t.http().put('/api/risk/rules').set(admin).send(OFF).expect(200);
    for (const e of (await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body) {
      await t.http().delete(`/api/risk/blocklist/${e.id}`).set(admin).expect(200);
    }
  });
  afterAll(() => t?.close());

  const setRules = async (changes: Partial<Rules>) =>
    (
      await t
        .http()
        .put('/api/risk/rules')
        .set(admin)
        .send({ ...OFF, ...changes })
        .expect(200)
    ).body;

  /** A code of a product of its own (one e-mail may redeem each product once). */
  const freshCode = async () => {
    const product = await licenseManagedProduct(t.db, `Risk ${randomCode('P')}`);
    const [code] = await addCodes(t.db, product, [randomCode('RISK')]);
    return code;
  };
  const redeem = (ip: string, body: Partial<RedeemBody> & { voucherCode: string }) =>
    t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody(body));
  const isRedeemed = async (code: string) =>
    (await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [code]))[0].is_redeemed as boolean;
  const refusals = async (code: string) =>
    t.db.query(
      `SELECT details FROM security_audit_log WHERE action = 'redemption.risk-refused' AND details->>'voucherCode' = $1`,
      [code],
    );
  /** Refused: 403 with the §18 message, the code still unredeemed, one audit row naming `rule`. */
  const expectRefused = async (res: { status: number; body: { message: string } }, code: string, rule: string) => {
    expect([res.status, res.body.message]).toEqual([403, REFUSED]);
    expect(await isRedeemed(code)).toBe(false);
    const rows = await refusals(code);
    expect(
      rows.map((r: { details: { rules: Array<{ rule: string }> } }) => r.details.rules.map((f) => f.rule)),
    ).toEqual([[rule]]);
  };

  it('answers every rule off by default and takes the same object back; bad input is refused and changes nothing', async () => {
    expect((await t.http().get('/api/risk/rules').set(admin).expect(200)).body).toEqual(OFF);
    const on = { ...OFF, emailPerDay: { enabled: true, threshold: 7, action: 'refuse' } };
    expect(await setRules(on)).toEqual(on);
    for (const bad of [
      { ...on, addressPerHour: { enabled: 'yes', action: 'review' } },
      { ...on, emailPerDay: { enabled: true, threshold: 0, action: 'review' } },
      { ...on, disposableEmail: { enabled: true, action: 'block' } },
      { emailPerDay: on.emailPerDay },
    ]) {
      const res = await t.http().put('/api/risk/rules').set(admin).send(bad);
      expect(res.status).toBe(400);
    }
    expect((await t.http().get('/api/risk/rules').set(admin).expect(200)).body).toEqual(on);
  });

  it('keeps blocklist entries normalised, once each, refuses bad ones and removes them', async () => {
    const add = (kind: string, value: string) => t.http().post('/api/risk/blocklist').set(admin).send({ kind, value });
    const cidr = (await add('address', '203.0.113.9/24').expect(201)).body;
    expect(cidr).toMatchObject({ kind: 'address', value: '203.0.113.0/24', hits: 0 });
    expect((await add('address', '203.0.113.0/24').expect(201)).body.id).toBe(cidr.id);
    expect((await add('email', ' Reseller@Example.COM ').expect(201)).body.value).toBe('reseller@example.com');
    expect((await add('phone', '+44 20 7946 0958').expect(201)).body.value).toBe('+442079460958');
    for (const [kind, value, message] of [
      ['address', '203.0.113.300', 'An address entry is an IPv4 or IPv6 address or a CIDR such as 203.0.113.0/24.'],
      ['email', 'not-an-email', 'An e-mail entry is an e-mail address.'],
      ['hardware', 'x', 'The kind is email, domain, address or phone.'],
    ]) {
      expect((await add(kind, value).expect(400)).body.message).toBe(message);
    }
    expect((await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body).toHaveLength(3);
    await t.http().delete(`/api/risk/blocklist/${cidr.id}`).set(admin).expect(200);
    await t.http().delete(`/api/risk/blocklist/${cidr.id}`).set(admin).expect(404);
    expect((await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body).toHaveLength(2);
  });

  it('emailPerDay: off serves any number; refuse stops the redemption after the threshold, any product', async () => {
    const email = uniqueEmail();
    for (let i = 0; i < 3; i++) {
      expect((await redeem(nextIp(), { voucherCode: await freshCode(), email })).status).toBe(201);
    }
    await setRules({ emailPerDay: { enabled: true, threshold: 1, action: 'refuse' } });
    const other = uniqueEmail();
    expect((await redeem(nextIp(), { voucherCode: await freshCode(), email: other })).status).toBe(201);
    const code = await freshCode();
    await expectRefused(await redeem(nextIp(), { voucherCode: code, email: other }), code, 'emailPerDay');
    // The refused one was not counted: raising the threshold lets the second through.
    await setRules({ emailPerDay: { enabled: true, threshold: 2, action: 'refuse' } });
    expect((await redeem(nextIp(), { voucherCode: code, email: other })).status).toBe(201);
  });

  it('addressPerHour: off serves any number; refuse stops the address group after the threshold', async () => {
    const ip = nextIp();
    for (let i = 0; i < 3; i++) expect((await redeem(ip, { voucherCode: await freshCode() })).status).toBe(201);
    await setRules({ addressPerHour: { enabled: true, threshold: 1, action: 'refuse' } });
    // One IPv6 /64 is one group.
    expect((await redeem('2001:db8:0:7::1', { voucherCode: await freshCode() })).status).toBe(201);
    const code = await freshCode();
    await expectRefused(await redeem('2001:db8:0:7::2', { voucherCode: code }), code, 'addressPerHour');
    expect((await redeem('2001:db8:0:8::2', { voucherCode: code })).status).toBe(201);
  });

  it('disposableEmail: off serves a disposable domain; refuse stops it, a normal one passes', async () => {
    expect(
      (await redeem(nextIp(), { voucherCode: await freshCode(), email: `a${++serial}@mailinator.com` })).status,
    ).toBe(201);
    await setRules({ disposableEmail: { enabled: true, action: 'refuse' } });
    const code = await freshCode();
    await expectRefused(
      await redeem(nextIp(), { voucherCode: code, email: `b${++serial}@mailinator.com` }),
      code,
      'disposableEmail',
    );
    expect((await redeem(nextIp(), { voucherCode: code })).status).toBe(201);
  });

  it("countryMismatch: off serves a UK phone from a US address; refuse stops it, the address's own country passes", async () => {
    const uk = '+44 20 7946 0958';
    expect((await redeem('8.8.8.8', { voucherCode: await freshCode(), phone: uk })).status).toBe(201);
    await setRules({ countryMismatch: { enabled: true, action: 'refuse' } });
    const code = await freshCode();
    await expectRefused(await redeem('8.8.8.8', { voucherCode: code, phone: uk }), code, 'countryMismatch');
    expect((await redeem('8.8.8.8', { voucherCode: code, phone: '+1 302 555 0100' })).status).toBe(201);
  });

  it('blocklist: off serves a listed e-mail; refuse stops e-mail, domain, CIDR and phone entries and counts hits', async () => {
    const email = uniqueEmail();
    const entry = (kind: string, value: string) =>
      t.http().post('/api/risk/blocklist').set(admin).send({ kind, value }).expect(201);
    await entry('email', email);
    await entry('domain', 'farm.example');
    await entry('address', '192.0.2.0/24');
    await entry('phone', '+44 20 7946 0958');
    expect((await redeem(nextIp(), { voucherCode: await freshCode(), email })).status).toBe(201);
    await setRules({ blocklist: { enabled: true, action: 'refuse' } });
    for (const body of [{ email }, { email: `x${++serial}@farm.example` }, { phone: '+442079460958' }]) {
      const code = await freshCode();
      await expectRefused(await redeem(nextIp(), { voucherCode: code, ...body }), code, 'blocklist');
    }
    const code = await freshCode();
    await expectRefused(await redeem('192.0.2.77', { voucherCode: code }), code, 'blocklist');
    const hits = (await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body.map(
      (e: { kind: string; hits: number }) => [e.kind, e.hits],
    );
    expect(hits.sort()).toEqual([
      ['address', 1],
      ['domain', 1],
      ['email', 1],
      ['phone', 1],
    ]);
    expect((await redeem(nextIp(), { voucherCode: code })).status).toBe(201);
  });

  it('counts a refused redemption as a guess only when its code was unknown', async () => {
    await setRules({ disposableEmail: { enabled: true, action: 'refuse' } });
    const blocked = async (ip: string) =>
      (await t.db.query(`SELECT 1 FROM blocked_ips WHERE ip_address = $1 AND is_active`, [ip])).length > 0;
    const known = nextIp();
    for (let i = 0; i < 3; i++) {
      const code = await freshCode();
      await expectRefused(
        await redeem(known, { voucherCode: code, email: `k${++serial}@mailinator.com` }),
        code,
        'disposableEmail',
      );
    }
    expect(await blocked(known)).toBe(false);
    const guesser = nextIp();
    for (let i = 0; i < 2; i++) {
      const res = await redeem(guesser, { voucherCode: randomCode('NONE'), email: `g${++serial}@mailinator.com` });
      expect(res.status).toBe(403);
    }
    expect(await blocked(guesser)).toBe(true);
  });
});
