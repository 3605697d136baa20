import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { createServer, get, Server } from 'https';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import {
  MAC_TEMPLATE_WITH_LINKS,
  MacActivationLink1796223742298,
} from '../backend/src/database/migrations/1796223742298-mac-activation-link';
import { VENDOR_REMOVAL_TOOL_LINK } from '../backend/src/modules/redemption/mac-package-links';
import { bearer, tokenFor } from './helpers/auth';
import { createTestDatabase, TestDatabase } from './helpers/database';
import { addLicenseKey, PRODUCTS } from './helpers/factories';
import { licenceCentreClient, LicenceCentre, letters, startLicenceCentre } from './helpers/licence-centre';
import { migrate, migrationsBefore } from './helpers/migrations';
import { eventually } from './helpers/redemptions';
import { randomHex } from './helpers/seed';

/**
 * A real HTTPS server on 127.0.0.1 serving licence packages (a self-signed certificate made by openssl for the
 * address, trusted by the test's own requests only): the links a Mac customer follows from the order e-mail.
 */
async function startPackageServer(): Promise<{
  url: (path: string) => string;
  fetch: (url: string) => Promise<{ status: number; body: Buffer }>;
  packages: Map<string, Buffer>;
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'ovr-pkg-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const key = readFileSync(join(dir, 'key.pem'));
  const cert = readFileSync(join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
  const packages = new Map<string, Buffer>();
  const server: Server = createServer({ key, cert }, (req, res) => {
    const body = packages.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    packages,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    fetch: (url) =>
      new Promise((resolve, reject) => {
        get(url, { ca: cert }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        }).on('error', reject);
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The href of the first link in the list item that starts with `item` (the Mac template's three packages). */
function linkOf(html: string, item: string): string | undefined {
  const li = new RegExp(`<li>${item}[^<]*<a href="([^"]+)"`).exec(html);
  return li?.[1].replace(/&amp;/g, '&');
}

/**
 * docs/product.md §12.7: a Mac product's licence package link, set by an admin through the API, goes out in the
 * order e-mail and works; the licence centre and the redemption details give the same link.
 */
describe('Mac licence package link', () => {
  let lc: LicenceCentre;
  let pkg: Awaited<ReturnType<typeof startPackageServer>>;
  let operator: Record<string, string>;
  const client = licenceCentreClient(
    () => lc.t,
    () => lc.smtp,
  );
  const orderMailTo = async (email: string) =>
    eventually(
      async () => client.messagesTo(email).find((m) => m.subject?.includes('installation set')),
      20_000,
      `the order e-mail to ${email}`,
    );

  beforeAll(async () => {
    pkg = await startPackageServer();
    lc = await startLicenceCentre('Mac activation');
    operator = bearer(await tokenFor(lc.t, 'operator'));
  });
  afterAll(async () => {
    await lc?.close();
    await pkg?.close();
  });

  it('is set in the product through PUT /api/products/{id}, sent in the order e-mail and downloads the package', async () => {
    const path = `/mac/licence-package-${randomHex(6)}.pkg`;
    pkg.packages.set(path, Buffer.from(`licence package ${randomHex(16)}`));
    const link = pkg.url(path);

    const put = await lc.t
      .http()
      .put(`/api/products/${lc.mac}`)
      .set(lc.admin)
      .send({ activationLink: link })
      .expect(200);
    expect(put.body).toMatchObject({ activationLink: link, removalToolLink: null });
    // Those who may see products read it: an operator's product list.
    const list = await lc.t.http().get('/api/products').set(operator).expect(200);
    const mac = list.body.find((p: { id: string }) => p.id === lc.mac);
    expect(mac).toMatchObject({ name: PRODUCTS.homeBusinessMac, activationLink: link });
    // The seeded Mac template was never edited: the migration gave it both links.
    expect(mac.emailTemplate).toBe(MAC_TEMPLATE_WITH_LINKS);

    const email = `mac-${letters()}@example.com`;
    const { id } = await client.redeem(lc.mac, { email });
    const mail = await orderMailTo(email);
    const html = String(mail.html);
    const found = linkOf(html, 'License Activation');
    expect(found).toBe(link);
    expect(linkOf(html, 'Office Removal Tool')).toBe(VENDOR_REMOVAL_TOOL_LINK);
    expect(linkOf(html, 'Office 2024 Installer')).toBe(mac.downloadLink);

    // The customer follows the link found in the e-mail and gets the package.
    const download = await pkg.fetch(found!);
    expect(download.status).toBe(200);
    expect(download.body.equals(pkg.packages.get(path)!)).toBe(true);

    // The licence centre and the redemption details show the same link.
    const customer = await client.signIn(email);
    const licences = (await lc.t.http().get('/api/customer/licences').set(customer).expect(200)).body;
    expect(licences).toEqual([
      expect.objectContaining({ redemptionId: id, activationLink: found, removalToolLink: VENDOR_REMOVAL_TOOL_LINK }),
    ]);
    const details = await lc.t.http().get(`/api/redemptions/${id}`).set(operator).expect(200);
    expect(details.body.activationLink).toBe(found);
  });

  it("of a licence-managed Mac product is the customer's own key's download link", async () => {
    const installer = 'https://go.microsoft.com/fwlink/?linkid=2009112';
    const removal = pkg.url(`/mac/removal-${randomHex(4)}.pkg`);
    const created = await lc.t
      .http()
      .post('/api/products')
      .set(lc.admin)
      .send({
        name: `Office 2024 Home & Business (Mac) ${randomHex(4)}`,
        isLicenseManaged: true,
        downloadLink: installer,
        removalToolLink: removal,
        emailSubject: 'Your {{product_name}} installation set',
        emailTemplate: MAC_TEMPLATE_WITH_LINKS,
      })
      .expect(201);
    const product: string = created.body.id;
    const path = `/mac/customer-${randomHex(6)}.pkg`;
    pkg.packages.set(path, Buffer.from(`customer package ${randomHex(16)}`));
    await addLicenseKey(lc.t.db, product, `MAC-${randomHex(8).toUpperCase()}`, { downloadLink: pkg.url(path) });

    const email = `managed-${letters()}@example.com`;
    const { id } = await client.redeem(product, { email });
    const html = String((await orderMailTo(email)).html);
    const found = linkOf(html, 'License Activation');
    expect(found).toBe(pkg.url(path));
    expect(linkOf(html, 'Office Removal Tool')).toBe(removal);
    expect(linkOf(html, 'Office 2024 Installer')).toBe(installer);
    const download = await pkg.fetch(found!);
    expect([download.status, download.body.equals(pkg.packages.get(path)!)]).toEqual([200, true]);

    const customer = await client.signIn(email);
    const [licence] = (await lc.t.http().get('/api/customer/licences').set(customer).expect(200)).body;
    expect(licence).toMatchObject({ redemptionId: id, activationLink: found, removalToolLink: removal });
    expect((await lc.t.http().get(`/api/redemptions/${id}`).set(operator).expect(200)).body.activationLink).toBe(found);
  });

  it('refuses a bad link with a clear message and changes nothing', async () => {
    const before = (await lc.t.http().get(`/api/products/${lc.mac}`).set(lc.admin).expect(200)).body;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ activationLink: 'http://downloads.example.com/licence.pkg' }, 'activationLink', 'Must be an HTTPS URL'],
      [{ activationLink: 'not a link' }, 'activationLink', 'Must be a valid URL'],
      [{ activationLink: 42 }, 'activationLink', 'Must be a valid URL'],
      [
        { activationLink: `https://downloads.example.com/${'a'.repeat(2048)}` },
        'activationLink',
        'Activation link must be at most 2048 characters',
      ],
      [{ removalToolLink: 'ftp://downloads.example.com/removal.pkg' }, 'removalToolLink', 'Must be an HTTPS URL'],
      // A good field beside the bad link is not written either.
      [
        { emailSubject: 'Changed {{product_name}}', activationLink: 'javascript:alert(1)' },
        'activationLink',
        'Must be a valid URL',
      ],
    ];
    for (const [body, field, message] of cases) {
      const res = await lc.t.http().put(`/api/products/${lc.mac}`).set(lc.admin).send(body).expect(400);
      expect(res.body.message).toBe(message);
      expect(res.body.errors).toEqual([{ field, message }]);
    }
    const after = (await lc.t.http().get(`/api/products/${lc.mac}`).set(lc.admin).expect(200)).body;
    expect(after).toEqual(before);

    // An empty link clears it (null), as the product key is cleared.
    const cleared = await lc.t
      .http()
      .put(`/api/products/${lc.mac}`)
      .set(lc.admin)
      .send({ activationLink: '' })
      .expect(200);
    expect(cleared.body.activationLink).toBeNull();
  });
});

describe('migration 1796223742298: the seeded Mac template gets the package links', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('ovr_mig_mac_links');
  });
  afterAll(() => db?.drop());

  it('replaces the seeded Mac template only where it was never edited', async () => {
    await migrate(db.url, migrationsBefore(MacActivationLink1796223742298));
    const dataSource = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await dataSource.initialize();
    try {
      const [seeded] = await dataSource.query(`SELECT email_template FROM products WHERE name = $1`, [
        PRODUCTS.homeBusinessMac,
      ]);
      const edited = `${seeded.email_template}\n<p>Our own closing line.</p>`;
      await dataSource.query(
        `INSERT INTO products (name, download_link, email_subject, email_template) VALUES ('Edited Mac', '', 's', $1)`,
        [edited],
      );
      const windowsBefore = await dataSource.query(
        `SELECT name, email_template FROM products WHERE name LIKE '%(Windows)' ORDER BY name`,
      );

      await migrate(db.url);

      const templates = new Map<string, string>(
        (await dataSource.query(`SELECT name, email_template FROM products`)).map(
          (p: { name: string; email_template: string }) => [p.name, p.email_template],
        ),
      );
      expect(templates.get(PRODUCTS.homeBusinessMac)).toBe(MAC_TEMPLATE_WITH_LINKS);
      expect(templates.get('Edited Mac')).toBe(edited);
      for (const w of windowsBefore) expect(templates.get(w.name)).toBe(w.email_template);
      const [columns] = await dataSource.query(
        `SELECT activation_link, removal_tool_link FROM products WHERE name = $1`,
        [PRODUCTS.homeBusinessMac],
      );
      expect(columns).toEqual({ activation_link: null, removal_tool_link: null });
    } finally {
      await dataSource.destroy();
    }
  });
});
