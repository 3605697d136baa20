import { execFile } from 'child_process';
import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Writable } from 'stream';
import { promisify } from 'util';
import { DataCipher } from '../backend/src/config/data-cipher';
import { DatabaseService } from '../backend/src/database/database.service';
import { LicenseKeySealingRepository } from '../backend/src/modules/license/license-key-sealing.repository';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, tokenFor } from './helpers/auth';
import { addCodes, openKey, randomCode, redeemBody } from './helpers/factories';
import { BUILT_CLI } from './helpers/processes';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';

const run = promisify(execFile);

/** docs/product.md §18.1: licence keys sealed under DATA_KEY, success tokens hashed, secrets kept out of the request log. */
describe('Keys at rest', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let auth: Record<string, string>;
  const log: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      log.push(chunk.toString());
      done();
    },
  });

  async function licenceProduct(name: string): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO products (name, is_license_managed, download_link, email_subject, email_template)
       VALUES ($1, true, 'https://dl.example.com/p.exe', 'Your licence', '<p>Key: {{license_key}}</p>') RETURNING id`,
      [`${name} (Windows)`],
    );
    return row.id;
  }

  const addPoolKey = (productId: string, licenseKey: string) =>
    t
      .http()
      .post('/api/license-keys')
      .set(auth)
      .send({ productId, licenseKey, downloadLink: 'https://dl.example.com/k.exe', licenseType: 'single-user' });

  const dump = async () =>
    (await run('pg_dump', ['--no-owner', t.database.url], { maxBuffer: 64 * 1024 * 1024 })).stdout;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url, LOG_LEVEL: 'info' }, { logStream });
    auth = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  describe('redeem, success page, e-mail, export', () => {
    const poolKey = 'SEAL1-ABCDE-FGHIJ-KLMNO-PQRST';
    const manualKey = 'HANDY-22222-33333-44444-UVWXY';
    let product: string;
    let pooled: { code: string; token: string; id: string };
    let manual: { code: string; token: string; id: string };

    beforeAll(async () => {
      // Another describe's e-mail may be in already (the order is shuffled under --randomize): this one waits for its own.
      const before = smtp.messages.length;
      product = await licenceProduct('Sealed');
      await addPoolKey(product, poolKey).expect(201);
      const redeem = async () => {
        const [code] = await addCodes(t.db, product, [randomCode('SEAL')]);
        const res = await t
          .http()
          .post('/api/redeem-voucher')
          .send(redeemBody({ voucherCode: code }))
          .expect(201);
        const [row] = await t.db.query(
          `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
          [code],
        );
        return { code, token: res.body.successToken as string, id: row.id as string };
      };
      pooled = await redeem();
      manual = await redeem();
      await t
        .http()
        .post(`/api/redemptions/${manual.id}/assign-license`)
        .set(auth)
        .send({ licenseKey: manualKey, downloadLink: 'https://dl.example.com/m.exe' })
        .expect(200);
      await smtp.waitFor(before + 2);
    });

    it('shows the clear keys on the success page, in the e-mails and in the export', async () => {
      const page = await t.http().get(`/api/success-token/${pooled.token}`).expect(200);
      expect(page.body).toMatchObject({ isManualProcessing: false, licenseKey: poolKey });
      const manualPage = await t.http().get(`/api/success-token/${manual.token}`).expect(200);
      expect(manualPage.body).toMatchObject({ isManualProcessing: false, licenseKey: manualKey });

      const htmlOf = (code: string) =>
        smtp.messages
          .filter((m) => String(m.html).includes(code) || String(m.text).includes(code))
          .map((m) => String(m.html));
      expect(htmlOf(poolKey)).toHaveLength(1);
      expect(htmlOf(manualKey)).toHaveLength(1);
      expect(htmlOf(`MANUAL_${manualKey}`)).toHaveLength(0);

      const details = await t.http().get(`/api/redemptions/${manual.id}`).set(auth).expect(200);
      expect(details.body.assignedLicenseKey.licenseKey).toBe(`MANUAL_${manualKey}`);

      const csv = await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: [pooled.id, manual.id], format: 'csv' });
      expect(csv.status).toBe(200);
      expect(csv.text).toContain(`,${poolKey},`);
      expect(csv.text).toContain(`,${manualKey},`);
      expect(csv.text).not.toContain('MANUAL_');
    });

    it('leaves no licence key and no success token in clear in a pg_dump of the database', async () => {
      const text = await dump();
      expect(text).toContain('PQRST'); // the clear last characters, for display and search
      for (const secret of [poolKey, manualKey, `MANUAL_${manualKey}`, poolKey.slice(0, -6), manualKey.slice(0, -6)]) {
        expect(text).not.toContain(secret);
      }
      for (const token of [pooled.token, manual.token]) expect(text).not.toContain(token);
    });

    it('keeps keys unique per product (409) and finds them by their last group, or whole', async () => {
      const duplicate = await addPoolKey(product, poolKey).expect(409);
      expect(duplicate.body.message).toBe('This license key already exists for this product');
      await addPoolKey(await licenceProduct('Other Sealed'), poolKey).expect(201);

      await addPoolKey(product, 'SEAL2-ZZZZZ-YYYYY-XXXXX-LMNOP').expect(201);
      const found = async (search: string) =>
        (
          await t.http().get('/api/license-keys').query({ productId: product, search }).set(auth).expect(200)
        ).body.licenseKeys.map((k: { licenseKey: string }) => k.licenseKey);
      expect(await found('pqrst')).toEqual([poolKey]);
      expect(await found('LMNOP')).toEqual(['SEAL2-ZZZZZ-YYYYY-XXXXX-LMNOP']);
      expect(await found(poolKey)).toEqual([poolKey]);
      expect(await found('ABCDE')).toEqual([]); // only the last group is stored in clear
    });

    it('keeps success tokens, voucher codes and credentials out of the request log', async () => {
      // Besides the redemptions and the assignment of the fixture: a success page and a key search.
      await t.http().get(`/api/success-token/${pooled.token}`).expect(200);
      await t.http().get('/api/license-keys').query({ productId: product, search: 'PQRST' }).set(auth).expect(200);
      const text = log.join('');
      expect(text).toContain('/api/success-token/[Redacted]');
      expect(text).toContain('"authorization":"[Redacted]"');
      for (const secret of [pooled.token, manual.token, pooled.code, manual.code, poolKey, manualKey]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toContain(auth.Authorization.replace(/^Bearer /, ''));
      expect(text).toContain('search=[Redacted]');
      // One line per request (common/request-log.ts), with its id bound and its request serialized.
      const page = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((line) => line.req?.url === '/api/success-token/[Redacted]');
      expect(page).toMatchObject({ msg: 'request completed', res: { statusCode: 200 }, req: { method: 'GET' } });
      expect(page.req.id).toBe(page.reqId);

      // Cookies and other credential headers, and a code in a query string.
      log.length = 0;
      await t
        .http()
        .get(`/api/success-token/${pooled.token}?token=${pooled.token}`)
        .set('Cookie', 'session=cookie-secret-1')
        .set('X-Api-Key', 'api-key-secret-2')
        .expect(200);
      const again = log.join('');
      expect(again).toContain('[Redacted]');
      for (const secret of [pooled.token, 'cookie-secret-1', 'api-key-secret-2']) expect(again).not.toContain(secret);
    });
  });

  describe("a Mac product's shared product key", () => {
    const productKey = 'MACPK-77777-88888-99999-ZYXWV';

    it('is sealed at rest and shown in clear on the product, the success page and the e-mail', async () => {
      const created = await t
        .http()
        .post('/api/products')
        .set(auth)
        .send({
          name: 'Sealed Suite (Mac)',
          downloadLink: 'https://dl.example.com/mac.pkg',
          productKey,
          emailSubject: 'Your Mac key',
          emailTemplate: '<p>Key: {{license_key}}</p>',
        })
        .expect(201);
      expect(created.body.productKey).toBe(productKey);
      const [row] = await t.db.query(`SELECT product_key, product_key_ciphertext FROM products WHERE id = $1`, [
        created.body.id,
      ]);
      expect(row.product_key).toBeNull();
      expect(openKey(t.db, row.product_key_ciphertext)).toBe(productKey);

      const [code] = await addCodes(t.db, created.body.id, [randomCode('MACSEAL')]);
      const before = smtp.messages.length;
      const res = await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
      const page = await t.http().get(`/api/success-token/${res.body.successToken}`).expect(200);
      expect(page.body.licenseKey).toBe(productKey);
      const mail = (await smtp.waitFor(before + 1))[before];
      expect(mail.subject).toBe('Your Mac key');
      expect(String(mail.html)).toContain(productKey);

      const text = await dump();
      expect(text).not.toContain(productKey);
      expect(text).not.toContain(productKey.slice(0, 12));

      // Changed, then cleared: the new value replaces the sealed one, null leaves nothing.
      const changed = await t
        .http()
        .put(`/api/products/${created.body.id}`)
        .set(auth)
        .send({ productKey: 'MACPK-NEW-00001' })
        .expect(200);
      expect(changed.body.productKey).toBe('MACPK-NEW-00001');
      const cleared = await t
        .http()
        .put(`/api/products/${created.body.id}`)
        .set(auth)
        .send({ productKey: null })
        .expect(200);
      expect(cleared.body.productKey).toBeNull();
      const [after] = await t.db.query(`SELECT product_key, product_key_ciphertext FROM products WHERE id = $1`, [
        created.body.id,
      ]);
      expect(after).toEqual({ product_key: null, product_key_ciphertext: null });
    });
  });

  // Sealing at start-up what an earlier version left in clear (licence keys, product keys, TOTP secrets), and what the
  // writers store: test/medium/sealing.medium-spec.ts.
  describe('rotate-data-key', () => {
    // A service of its own: the rotation re-encrypts every key of the database, which the suite's app (configured
    // with the old key) could then no longer open.
    let own: TestApp;
    beforeAll(async () => {
      own = await startTestApp(RECEIVERS_ON_LOOPBACK);
    });
    afterAll(() => own.close());

    const cli = (env: Record<string, string>) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'ovr-rotate-'));
      // The built CLI (`npm run admin -- rotate-data-key`), as an operator runs it.
      return run(process.execPath, [BUILT_CLI, 'rotate-data-key'], {
        cwd: process.cwd(),
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATA_DIR: dataDir,
          DATABASE_URL: own.database.url,
          JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!!',
          ...env,
        },
      }).finally(() => rmSync(dataDir, { recursive: true, force: true }));
    };

    it('re-encrypts every key under the new key, resumably, and everything still opens', async () => {
      const [{ id: product }] = await own.db.query(
        `INSERT INTO products (name, is_license_managed, download_link) VALUES ('Rotation (Windows)', true, 'https://dl.example.com/p.exe') RETURNING id`,
      );
      const ownAuth = bearer(await tokenFor(own, 'admin'));
      for (const key of ['ROTATE-0001-AAAAA', 'ROTATE-0002-BBBBB', 'ROTATE-0003-CCCCC']) {
        await own
          .http()
          .post('/api/license-keys')
          .set(ownAuth)
          .send({
            productId: product,
            licenseKey: key,
            downloadLink: 'https://dl.example.com/k.exe',
            licenseType: 'single-user',
          })
          .expect(201);
      }
      const mac = await own
        .http()
        .post('/api/products')
        .set(ownAuth)
        .send({ name: 'Rotation Suite (Mac)', productKey: 'ROTATEPK-0001' })
        .expect(201);
      const hook = await own
        .http()
        .post('/api/webhooks')
        .set(ownAuth)
        .send({ url: 'http://127.0.0.1:9/rotation', events: ['pool.low'] })
        .expect(201);
      const connection = await own
        .http()
        .post('/api/marketplaces')
        .set(ownAuth)
        .send({ name: 'Rotation marketplace', baseUrl: 'http://127.0.0.1:9/mp' })
        .expect(201);
      const totpUser = await createAdminUser(own);
      const totpSecret = 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU';
      await own.db.query(
        `UPDATE admin_users SET two_factor_secret_ciphertext = $2, two_factor_enabled = true WHERE id = $1`,
        [totpUser.id, new DataCipher(own.config.dataKey).seal(totpSecret)],
      );
      const oldKey = own.config.dataKey;
      const newKey = randomBytes(32);
      const before: Array<{ id: string; key_ciphertext: Buffer }> = await own.db.query(
        `SELECT id, key_ciphertext FROM license_keys WHERE key_ciphertext IS NOT NULL ORDER BY id`,
      );
      const oldCipher = new DataCipher(oldKey);
      const clear = new Map(before.map((r) => [r.id, oldCipher.open(r.key_ciphertext)]));

      // Without DATA_KEY_PREVIOUS the command refuses.
      await expect(cli({ DATA_KEY: newKey.toString('base64') })).rejects.toMatchObject({ code: 2 });

      // An interrupted rotation: the first row only.
      const rotating = new DataCipher(newKey, oldKey);
      const partial = await new LicenseKeySealingRepository(new DatabaseService(own.db), rotating).rotateBatch(null, 1);
      expect(partial.rotated).toBe(1);

      const env = { DATA_KEY: newKey.toString('base64'), DATA_KEY_PREVIOUS: oldKey.toString('base64') };
      const { stdout } = await cli(env);
      expect(stdout).toContain(`Re-encrypted ${before.length - 1} licence keys`);
      expect((await cli(env)).stdout).toContain('Re-encrypted 0 licence keys');

      const newCipher = new DataCipher(newKey);
      const after: Array<{ id: string; key_ciphertext: Buffer; key_hash: Buffer }> = await own.db.query(
        `SELECT id, key_ciphertext, key_hash FROM license_keys WHERE key_ciphertext IS NOT NULL ORDER BY id`,
      );
      expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
      for (const r of after) {
        expect(newCipher.isCurrent(r.key_ciphertext)).toBe(true);
        expect(newCipher.open(r.key_ciphertext)).toBe(clear.get(r.id));
        expect(r.key_hash.equals(newCipher.hash(clear.get(r.id)!))).toBe(true);
      }
      expect(() => oldCipher.open(after[0].key_ciphertext)).toThrow(/unknown data key/);
      expect(stdout).toMatch(
        /, \d+ product keys, 1 webhook secrets, 1 TOTP secrets and 1 marketplace secrets under DATA_KEY/,
      );
      expect(stdout).toContain(
        'Still not under DATA_KEY: 0 licence keys, 0 product keys, 0 webhook secrets, 0 TOTP secrets, ' +
          '0 marketplace secrets.',
      );
      const [marketplaceRow] = await own.db.query(
        `SELECT secret_ciphertext FROM marketplace_connections WHERE id = $1`,
        [connection.body.id],
      );
      expect(newCipher.isCurrent(marketplaceRow.secret_ciphertext)).toBe(true);
      expect(newCipher.open(marketplaceRow.secret_ciphertext)).toBe(connection.body.secret);
      const [totpRow] = await own.db.query(`SELECT two_factor_secret_ciphertext FROM admin_users WHERE id = $1`, [
        totpUser.id,
      ]);
      expect(newCipher.isCurrent(totpRow.two_factor_secret_ciphertext)).toBe(true);
      expect(newCipher.open(totpRow.two_factor_secret_ciphertext)).toBe(totpSecret);

      const [hookRow] = await own.db.query(`SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1`, [
        hook.body.id,
      ]);
      expect(newCipher.isCurrent(hookRow.secret_ciphertext)).toBe(true);
      expect(newCipher.open(hookRow.secret_ciphertext)).toBe(hook.body.secret);
      const [macRow] = await own.db.query(`SELECT product_key_ciphertext FROM products WHERE id = $1`, [mac.body.id]);
      expect(newCipher.isCurrent(macRow.product_key_ciphertext)).toBe(true);
      expect(newCipher.open(macRow.product_key_ciphertext)).toBe('ROTATEPK-0001');

      // A value under neither key (an instance still running with some other DATA_KEY wrote it): the rotation cannot
      // re-seal it, says so and fails, so DATA_KEY_PREVIOUS is not dropped while something still needs it.
      const stray = new DataCipher(randomBytes(32)).seal('whsec_stray');
      await own.db.query(`UPDATE webhook_endpoints SET secret_ciphertext = $2 WHERE id = $1`, [hook.body.id, stray]);
      const failed = await cli(env).catch((err: { code: number; stdout: string; stderr: string }) => err);
      expect(failed).toMatchObject({ code: 1 });
      expect((failed as { stderr: string }).stderr).toContain(
        'Still not under DATA_KEY: 0 licence keys, 0 product keys, 1 webhook secrets, 0 TOTP secrets, ' +
          '0 marketplace secrets.',
      );
      // Four runs of the CLI, each a Node process compiling the backend with ts-node: on a loaded 2-core machine
      // that alone can take a minute or more.
    }, 320_000);
  });
});
