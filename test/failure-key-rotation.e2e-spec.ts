import { randomBytes } from 'crypto';
import { DataCipher } from '../backend/src/config/data-cipher';
import { DatabaseService } from '../backend/src/database/database.service';
import { LicenseKeySealingRepository } from '../backend/src/modules/license/license-key-sealing.repository';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createMigratedDatabase, TestDatabase } from './helpers/database';
import { addCodes, randomCode, redeemBody } from './helpers/factories';
import { expectNothingPartial } from './helpers/failures';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { randomHex } from './helpers/seed';

/**
 * Issue 27: an instance serving while a key rotation is half done (docs/architecture.md "Keys at rest", "Rotation"):
 * configured with DATA_KEY = new and DATA_KEY_PREVIOUS = old, over a pool where some keys are re-sealed and re-hashed
 * under the new key and the rest still under the old one. Keys under either are handed out, shown on success pages
 * (also of redemptions made before the rotation) and in the e-mail, found by their whole key, and a copy of one under
 * the old hash is refused as a duplicate (the two-hash lookup in license.repository.ts).
 */
describe('failure paths: a running app during a half-finished key rotation', () => {
  jest.setTimeout(120_000);
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let rotating: TestApp;
  let product: string;
  const keys = Array.from({ length: 5 }, (_, i) => `ROT-${randomHex(4).toUpperCase()}-0000${i}`);
  let tokenBefore: string;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    smtp = await startSmtpServer();
    // Before the rotation: the service runs under the old key, adds the pool and serves a customer.
    const before = await startTestApp({ DATA_KEY: oldKey.toString('base64'), SMTP_URL: smtp.url }, { database });
    try {
      const auth = bearer(await tokenFor(before, 'admin'));
      const [row] = await before.db.query(
        `INSERT INTO products (name, is_license_managed, download_link, email_subject, email_template)
         VALUES ($1, true, 'https://dl.example.com/p.exe', 'Your licence', '<p>Key: {{license_key}}</p>') RETURNING id`,
        [`Rotation ${randomCode('P')} (Windows)`],
      );
      product = row.id;
      for (const [i, licenseKey] of keys.entries()) {
        await before
          .http()
          .post('/api/license-keys')
          .set(auth)
          .send({
            productId: product,
            licenseKey,
            downloadLink: `https://dl.example.com/${i}.exe`,
            licenseType: 'single-user',
          })
          .expect(201);
        // Oldest first is the order the pool hands them out.
        await before.db.query(
          `UPDATE license_keys SET created_at = now() - make_interval(mins => $2) WHERE key_last = $1`,
          [keys[i].slice(-5), 60 - i],
        );
      }
      const [code] = await addCodes(before.db, product, [randomCode('ROT')]);
      const res = await before
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
      tokenBefore = res.body.successToken;
      await smtp.waitFor(1);
    } finally {
      await before.close();
    }
    // The rotation runs part of the way (the CLI's batch, two rows) and the service restarts with both keys.
    const halfway = await startTestApp({ DATA_KEY: newKey.toString('base64') }, { database });
    await new LicenseKeySealingRepository(new DatabaseService(halfway.db), new DataCipher(newKey, oldKey)).rotateBatch(
      null,
      2,
    );
    await halfway.close();
    rotating = await startTestApp(
      { DATA_KEY: newKey.toString('base64'), DATA_KEY_PREVIOUS: oldKey.toString('base64'), SMTP_URL: smtp.url },
      { database },
    );
  });

  afterAll(async () => {
    await rotating?.close();
    await smtp?.close();
    await database?.drop();
  });

  it('hands out, shows, mails and finds keys under either key, and refuses a copy of one still under the old hash', async () => {
    const rows: Array<{ key_ciphertext: Buffer; key_last: string }> = await rotating.db.query(
      `SELECT key_ciphertext, key_last FROM license_keys WHERE product_id = $1`,
      [product],
    );
    const current = new DataCipher(newKey);
    const underOld = keys.filter(
      (k) => !current.isCurrent(rows.find((r) => r.key_last === k.slice(-5))!.key_ciphertext),
    );
    const underNew = keys.filter((k) => !underOld.includes(k));
    // Half done: two rotated, three still under the old key.
    expect(underNew).toHaveLength(2);
    expect(underOld).toHaveLength(3);

    // The success page of a redemption made before the rotation still shows its key.
    const earlier = await rotating.http().get(`/api/success-token/${tokenBefore}`).expect(200);
    expect(earlier.body.licenseKey).toBe(keys[0]);

    // The remaining four keys are handed out, shown and mailed, whichever key they are sealed under.
    for (const expected of keys.slice(1)) {
      const body = redeemBody({ voucherCode: (await addCodes(rotating.db, product, [randomCode('ROT')]))[0] });
      const res = await rotating.http().post('/api/redeem-voucher').send(body).expect(201);
      const page = await rotating.http().get(`/api/success-token/${res.body.successToken}`).expect(200);
      expect(page.body.licenseKey).toBe(expected);
      const mail = await eventually(
        async () => smtp.messages.find((m) => JSON.stringify(m.to).includes(body.email.toLowerCase())),
        30_000,
        `the e-mail with ${expected}`,
      );
      expect(mail.text).toContain(expected);
    }

    // Found by the whole key (its keyed hash, under the new or the previous key) ...
    const auth = bearer(await tokenFor(rotating, 'admin'));
    for (const key of keys) {
      const found = await rotating
        .http()
        .get('/api/license-keys')
        .query({ productId: product, search: key.toLowerCase() })
        .set(auth)
        .expect(200);
      expect(found.body.licenseKeys.map((k: { licenseKey: string }) => k.licenseKey)).toEqual([key]);
    }
    // ... and deduplicated on upload: a copy of any of them is the 409, the pool is unchanged, a new key is taken.
    for (const key of [...underOld, ...underNew]) {
      const dup = await rotating
        .http()
        .post('/api/license-keys')
        .set(auth)
        .send({
          productId: product,
          licenseKey: key,
          downloadLink: 'https://dl.example.com/x.exe',
          licenseType: 'single-user',
        })
        .expect(409);
      expect(dup.body.message).toBe('This license key already exists for this product');
    }
    const [{ n }] = await rotating.db.query(`SELECT count(*)::int AS n FROM license_keys WHERE product_id = $1`, [
      product,
    ]);
    expect(n).toBe(5);
    await rotating
      .http()
      .post('/api/license-keys')
      .set(auth)
      .send({
        productId: product,
        licenseKey: `ROT-NEW-${randomHex(3)}`,
        downloadLink: 'https://dl.example.com/x.exe',
        licenseType: 'single-user',
      })
      .expect(201);
    await expectNothingPartial(rotating.db);
  });
});
