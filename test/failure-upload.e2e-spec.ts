import { execFileSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { request as httpRequest } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createMigratedDatabase, PG_ADMIN_URL, type TestDatabase } from './helpers/database';
import { waitUntil } from './helpers/processes';
import { randomHex } from './helpers/seed';

/**
 * An upload that fails after its load began (docs/product.md §20.6): the client breaks the connection off in the
 * middle of the file, and the database runs out of space while the codes are copied in. Either way nothing of the
 * file is inserted, the load's connection is released, and the product's batches list the upload as failed with
 * its reason; the uploader who is still there reads a clear answer (507 for the full disk).
 */

const BOUNDARY = 'ovr-failure-upload';

/** A multipart body of `lines` codes in `file`, cut into its head (headers of the part) and its codes. */
function multipart(filename: string, lines: number, prefix: string): { head: Buffer; codes: Buffer; tail: Buffer } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: text/plain\r\n\r\n`,
  );
  const codes = Buffer.from(
    Array.from({ length: lines }, (_, i) => `${prefix}-${i.toString(36).padStart(6, '0')}`).join('\n'),
  );
  return { head, codes, tail: Buffer.from(`\r\n--${BOUNDARY}--\r\n`) };
}

describe('an upload that fails after its load began', () => {
  let t: TestApp;
  let admin: string;
  let watcher: Client;

  const newProduct = async (): Promise<string> =>
    (await t.db.query(`INSERT INTO products (name) VALUES ($1) RETURNING id`, [`Failed upload ${randomHex(4)}`]))[0].id;

  const codeCount = async (product: string): Promise<number> =>
    (await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE product_id = $1`, [product]))[0].n;

  const batches = async (product: string) =>
    (await t.http().get(`/api/products/${product}/batches`).set('Authorization', admin).expect(200)).body as Array<{
      fileName: string;
      inserted: number;
      failure: string | null;
    }>;

  /** The app's sessions on its database other than idle ones: a load left open would stay here. */
  const busySessions = async (database: string) =>
    (
      await watcher.query<{ state: string; query: string }>(
        `SELECT state, query FROM pg_stat_activity WHERE datname = $1 AND state <> 'idle' AND pid <> pg_backend_pid()`,
        [database],
      )
    ).rows;

  describe('cut off mid-stream by the client', () => {
    beforeAll(async () => {
      t = await startTestApp();
      admin = bearer(await tokenFor(t, 'admin')).Authorization;
      watcher = new Client({ connectionString: PG_ADMIN_URL });
      await watcher.connect();
    });
    afterAll(async () => {
      await watcher?.end();
      await t?.close();
    });

    it('inserts nothing, releases the load, lists the batch as failed with its reason and audits it', async () => {
      const product = await newProduct();
      const { head, codes, tail } = multipart('cut-off.txt', 200_000, 'CUT');
      const url = new URL(`/api/products/${product}/voucher-codes`, t.baseUrl);
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          Authorization: admin,
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
          'Content-Length': head.length + codes.length + tail.length,
        },
      });
      req.on('error', () => undefined); // the reset this test causes
      req.write(head);
      // Half of the codes, then wait until they are being copied in: the load has begun.
      req.write(codes.subarray(0, Math.floor(codes.length / 2)));
      await waitUntil('the upload copying codes in', async () =>
        (await busySessions(t.database.name)).some((s) => s.query.startsWith('COPY upload_codes')),
      );
      req.destroy();

      await waitUntil('the failed batch', async () => (await batches(product)).some((b) => b.failure));
      expect(await batches(product)).toEqual([
        expect.objectContaining({
          fileName: 'cut-off.txt',
          inserted: 0,
          failure: 'The upload was cut off before the whole file arrived. Nothing was added: upload the file again.',
        }),
      ]);
      expect(await codeCount(product)).toBe(0);
      await waitUntil('the load released', async () => (await busySessions(t.database.name)).length === 0);
      const [audit] = await t.db.query(
        `SELECT success, details FROM security_audit_log WHERE action = 'vouchers.upload' AND resource_id = $1`,
        [product],
      );
      expect(audit).toMatchObject({
        success: false,
        details: { filename: 'cut-off.txt', reason: expect.stringMatching(/^The upload was cut off/) },
      });

      // The product takes the same file whole afterwards: nothing of the cut-off one is in the way.
      const whole = Buffer.concat([head, codes, tail]);
      const res = await t
        .http()
        .post(`/api/products/${product}/voucher-codes`)
        .set('Authorization', admin)
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(whole)
        .expect(201);
      expect(res.body.inserted).toBe(200_000);
      expect(await codeCount(product)).toBe(200_000);
    });
  });

  describe('the database out of space during the copy', () => {
    let database: TestDatabase;
    let mount: string;
    const tablespace = `ovr_tiny_${randomHex(4)}`;

    beforeAll(async () => {
      // A 1 MB file system for the upload's temporary table: the database's own disk stays untouched.
      mount = mkdtempSync(join(tmpdir(), 'ovr-tiny-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mount]);
      execFileSync('chown', ['postgres:postgres', mount]);
      watcher = new Client({ connectionString: PG_ADMIN_URL });
      await watcher.connect();
      await watcher.query(`CREATE TABLESPACE ${tablespace} LOCATION '${mount}'`);
      database = await createMigratedDatabase();
      // The app's sessions put temporary tables there and keep few of their pages in memory.
      await watcher.query(`ALTER DATABASE ${database.name} SET temp_tablespaces = '${tablespace}'`);
      await watcher.query(`ALTER DATABASE ${database.name} SET temp_buffers = '800kB'`);
      t = await startTestApp({}, { database });
      admin = bearer(await tokenFor(t, 'admin')).Authorization;
    });
    afterAll(async () => {
      await t?.close();
      await database?.drop();
      await watcher?.query(`DROP TABLESPACE IF EXISTS ${tablespace}`);
      await watcher?.end();
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    });

    it('answers 507 with a clear message, inserts nothing and lists the batch as failed', async () => {
      const product = await newProduct();
      const { head, codes, tail } = multipart('too-big-for-the-disk.txt', 100_000, 'FULL');
      const res = await t
        .http()
        .post(`/api/products/${product}/voucher-codes`)
        .set('Authorization', admin)
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(Buffer.concat([head, codes, tail]))
        .expect(507);
      const message =
        'The database ran out of storage space while adding the codes. Nothing was added: try again once an ' +
        'administrator has freed space.';
      expect(res.body).toMatchObject({ statusCode: 507, message });
      expect(await codeCount(product)).toBe(0);
      expect(await batches(product)).toEqual([
        expect.objectContaining({ fileName: 'too-big-for-the-disk.txt', inserted: 0, failure: message }),
      ]);
      expect(await busySessions(database.name)).toEqual([]);

      // A file that fits goes in on the same sessions: the failed one left nothing behind.
      const small = multipart('fits.txt', 100, 'FITS');
      const ok = await t
        .http()
        .post(`/api/products/${product}/voucher-codes`)
        .set('Authorization', admin)
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(Buffer.concat([small.head, small.codes, small.tail]))
        .expect(201);
      expect(ok.body.inserted).toBe(100);
    });
  });
});
