import { ClientRequest, request as httpRequest } from 'http';
import { DatabaseService } from '../backend/src/database/database.service';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { eventually } from './helpers/redemptions';

const BOUNDARY = '----bulk-connections-test';

/**
 * An upload whose body arrives slowly: the multipart head and a first line are sent at once, the rest
 * only when the test calls finish(). It holds whatever the server gives it for as long as that takes.
 */
function slowUpload(t: TestApp, product: string, auth: string, n: number) {
  const url = new URL(`/api/products/${product}/voucher-codes`, t.baseUrl);
  let req!: ClientRequest;
  const response = new Promise<{ status: number; body: { message?: string } }>((resolve, reject) => {
    req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
  });
  req.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow-${n}.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\nSLOW-${n}-${'A'.repeat(4)}-1\n`,
  );
  return {
    response,
    finish: () => req.end(`SLOW-${n}-${'A'.repeat(4)}-2\n\r\n--${BOUNDARY}--\r\n`),
  };
}

describe('Uploads and exports share at most DB_BULK_CONNECTIONS database connections', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ DB_POOL_SIZE: '20', DB_BULK_CONNECTIONS: '4', DB_BULK_WAIT_MS: '100' });
  });
  afterAll(() => t.close());

  it('a public redemption succeeds while 20 slow uploads are in progress; uploads over the limit get 503', async () => {
    const auth = bearer(await tokenFor(t, 'admin')).Authorization;
    const proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [code] = await addCodes(t.db, mac, [randomCode('BULK')]);
    const database = t.app.get(DatabaseService);
    const before = database.bulkLoad.refused;

    const uploads = Array.from({ length: 20 }, (_, n) => slowUpload(t, proPlus, auth, n));
    try {
      // Four uploads hold a connection (their COPY waits for the rest of the file); sixteen waited briefly and were refused.
      await eventually(
        async () => {
          const load = database.bulkLoad;
          return load.active === 4 && load.refused - before === 16;
        },
        30_000,
        '4 uploads holding connections and 16 refused',
      );
      const [{ copies }] = await t.db.query(
        `SELECT count(*)::int AS copies FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY upload_codes%'`,
      );
      expect(copies).toBe(4);

      // Starved, it would wait until the uploads end (only after this line): any bound tells, a loose one allows for load.
      const res = await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .timeout(30_000);
      expect(res.status).toBe(201);
    } finally {
      for (const upload of uploads) upload.finish();
    }
    const results = await Promise.all(uploads.map((u) => u.response));
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    const refused = results.filter((r) => r.status === 503);
    expect(refused).toHaveLength(16);
    expect(refused[0].body).toEqual({
      statusCode: 503,
      message: 'The server is busy with other uploads and exports. Please try again in a minute.',
      error: 'Service Unavailable',
    });
    expect(database.bulkLoad.active).toBe(0);
  });
});
