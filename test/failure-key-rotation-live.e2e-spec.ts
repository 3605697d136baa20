import { randomBytes } from 'crypto';
import { DataCipher } from '../backend/src/config/data-cipher';
import { DatabaseService } from '../backend/src/database/database.service';
import { countKeysNotUnderCurrent, rotateSealedKeys } from '../backend/src/keys-at-rest';
import { LicenseKeySealingRepository } from '../backend/src/modules/license/license-key-sealing.repository';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createMigratedDatabase, TestDatabase } from './helpers/database';
import { addCodes, randomCode, redeemBody } from './helpers/factories';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { randomHex } from './helpers/seed';

/**
 * A DATA_KEY rotation on a service that keeps serving (docs/operations.md "Rotating DATA_KEY"): the re-sealing runs in
 * small batches between redemptions made at the same time, and during the rolling restart two instances run with
 * different key sets over one database, one still writing under the old key (DATA_KEY = old, DATA_KEY_PREVIOUS =
 * new), the other already under the new one (DATA_KEY = new, DATA_KEY_PREVIOUS = old). No key is lost, shown wrong
 * or handed out twice, each instance reads what the other wrote, and a copy of a key the other sealed is refused.
 */
describe('failure paths: a key rotation while the service serves', () => {
  jest.setTimeout(120_000);
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const b64 = (key: Buffer) => key.toString('base64');
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  const apps: TestApp[] = [];

  const newProduct = async (app: TestApp): Promise<string> =>
    (
      await app.db.query(
        `INSERT INTO products (name, is_license_managed, download_link, email_subject, email_template)
         VALUES ($1, true, 'https://dl.example.com/p.exe', 'Your licence', '<p>Key: {{license_key}}</p>') RETURNING id`,
        [`Rotation ${randomCode('P')} (Windows)`],
      )
    )[0].id;

  const addKey = async (app: TestApp, product: string, licenseKey: string) =>
    app
      .http()
      .post('/api/license-keys')
      .set(bearer(await tokenFor(app, 'admin')))
      .send({
        productId: product,
        licenseKey,
        downloadLink: 'https://dl.example.com/k.exe',
        licenseType: 'single-user',
      });

  /** A redemption on `on`, its page read on `readOn`, its e-mail found: the key each of them says. */
  async function redeem(on: TestApp, readOn: TestApp, product: string) {
    const body = redeemBody({ voucherCode: (await addCodes(on.db, product, [randomCode('ROT')]))[0] });
    const res = await on.http().post('/api/redeem-voucher').send(body).expect(201);
    const page = await readOn.http().get(`/api/success-token/${res.body.successToken}`).expect(200);
    const mail = await eventually(
      async () => smtp.messages.find((m) => JSON.stringify(m.to).includes(body.email.toLowerCase())),
      30_000,
      `the order e-mail to ${body.email}`,
    );
    return { page: page.body.licenseKey as string, mail: mail.text as string };
  }

  /** Every key of `product` opened with `cipher`: what the pool holds, as its plain keys. */
  async function poolKeys(app: TestApp, product: string, cipher: DataCipher): Promise<string[]> {
    const rows: Array<{ key_ciphertext: Buffer }> = await app.db.query(
      `SELECT key_ciphertext FROM license_keys WHERE product_id = $1`,
      [product],
    );
    return rows.map((r) => cipher.open(r.key_ciphertext)).sort();
  }

  beforeAll(async () => {
    database = await createMigratedDatabase();
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await smtp?.close();
    await database?.drop();
  });

  it('re-seals in batches between concurrent redemptions: each key handed out once, shown and mailed right', async () => {
    const before = await startTestApp({ DATA_KEY: b64(oldKey), SMTP_URL: smtp.url }, { database });
    const product = await newProduct(before);
    const keys = Array.from({ length: 24 }, (_, i) => `LIVE-${randomHex(4).toUpperCase()}-${i}`);
    for (const key of keys) await addKey(before, product, key).then((res) => expect(res.status).toBe(201));
    await before.close();

    const serving = await startTestApp(
      { DATA_KEY: b64(newKey), DATA_KEY_PREVIOUS: b64(oldKey), SMTP_URL: smtp.url },
      { database },
    );
    apps.push(serving);
    const rotation = new LicenseKeySealingRepository(new DatabaseService(serving.db), new DataCipher(newKey, oldKey));
    // Two rows a batch, a batch after every redemption's answer: the rotation and the customers take turns.
    let lastId: string | null = null;
    let batches = 0;
    const rotate = async () => {
      const batch = await rotation.rotateBatch(lastId, 2);
      if (batch.lastId) batches++;
      lastId = batch.lastId;
    };
    const served = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const mine: Array<{ page: string; mail: string }> = [];
        for (let i = 0; i < 4; i++) {
          mine.push(await redeem(serving, serving, product));
          await rotate();
        }
        return mine;
      }),
    );
    expect(batches).toBeGreaterThan(2);

    const handedOut = served.flat();
    expect(handedOut).toHaveLength(16);
    for (const { page, mail } of handedOut) {
      expect(keys).toContain(page);
      expect(mail).toContain(page);
    }
    expect(new Set(handedOut.map((s) => s.page)).size).toBe(16);

    // The rest of the rotation, as rotate-data-key runs it: then nothing is left under the old key, and every key of
    // the pool opens under the new key alone to what was added.
    await rotateSealedKeys(serving.db, new DataCipher(newKey, oldKey));
    expect(await countKeysNotUnderCurrent(serving.db, new DataCipher(newKey))).toEqual({
      licenseKeys: 0,
      productKeys: 0,
      webhookSecrets: 0,
      totpSecrets: 0,
      marketplaceSecrets: 0,
    });
    expect(await poolKeys(serving, product, new DataCipher(newKey))).toEqual([...keys].sort());
    // The pool's remaining keys are still handed out, and a copy of a re-sealed key is refused.
    expect((await redeem(serving, serving, product)).page).toMatch(/^LIVE-/);
    expect((await addKey(serving, product, keys[0])).status).toBe(409);
  });

  it('two instances with different key sets read what the other sealed and refuse a copy of it', async () => {
    // The rolling restart's middle: `early` still writes under the old key but opens the new one; `late` writes
    // under the new key and opens the old one.
    const early = await startTestApp(
      { DATA_KEY: b64(oldKey), DATA_KEY_PREVIOUS: b64(newKey), SMTP_URL: smtp.url },
      { database },
    );
    apps.push(early);
    const late = await startTestApp(
      { DATA_KEY: b64(newKey), DATA_KEY_PREVIOUS: b64(oldKey), SMTP_URL: smtp.url },
      { database },
    );
    apps.push(late);
    const product = await newProduct(early);
    const keys = Array.from({ length: 8 }, (_, i) => `MIX-${randomHex(4).toUpperCase()}-${i}`);
    for (const [i, key] of keys.entries()) {
      expect((await addKey(i % 2 ? late : early, product, key)).status).toBe(201);
    }
    // Each sealed under its writer's key.
    const rows: Array<{ key_ciphertext: Buffer }> = await early.db.query(
      `SELECT key_ciphertext FROM license_keys WHERE product_id = $1`,
      [product],
    );
    const underNew = rows.filter((r) => new DataCipher(newKey).isCurrent(r.key_ciphertext)).length;
    expect([underNew, rows.length - underNew]).toEqual([4, 4]);

    // A copy of a key the other instance sealed (its keyed hash under the other key) is refused by both.
    for (const [i, key] of keys.entries()) {
      expect((await addKey(i % 2 ? early : late, product, key.toLowerCase())).status).toBe(409);
    }

    // Redeemed on one, its page read on the other: every key, once.
    const served: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      const [on, readOn] = i % 2 ? [early, late] : [late, early];
      const { page, mail } = await redeem(on, readOn, product);
      expect(mail).toContain(page);
      served.push(page);
    }
    expect(served.sort()).toEqual([...keys].sort());

    // The rotation then leaves only what `early` wrote under the old key while it still runs: the closing check
    // counts it, so DATA_KEY_PREVIOUS is not dropped too early.
    await rotateSealedKeys(late.db, new DataCipher(newKey, oldKey));
    expect((await countKeysNotUnderCurrent(late.db, new DataCipher(newKey))).licenseKeys).toBe(0);
    const [code] = await addKey(early, product, `MIX-LATE-${randomHex(4).toUpperCase()}`).then((res) => [res.status]);
    expect(code).toBe(201);
    expect((await countKeysNotUnderCurrent(late.db, new DataCipher(newKey))).licenseKeys).toBe(1);
  });
});
