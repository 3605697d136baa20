import { AddressInfo } from 'net';
import { createServer, Server as HttpServer } from 'http';
import { Server } from 'socket.io';
import { io, Socket } from 'socket.io-client';
import { ADMINS_ROOM, RealtimeService } from '../backend/src/modules/realtime/realtime.service';
import { startTestApp, TestApp } from './helpers/app';
import { createProduct, redeem } from './helpers/admin-data';
import { bearer, createAdminUser, tokenFor } from './helpers/auth';
import { addCodes, productId, PRODUCTS } from './helpers/factories';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

describe('products', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let auth: { Authorization: string };
  // A real socket.io server attached to the app's RealtimeService, with one admin client in the room.
  let http: HttpServer;
  let sockets: Server;
  let client: Socket;
  const events: Array<{ type: string; message: string }> = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url });
    auth = bearer(await tokenFor(t, 'admin'));
    http = createServer();
    sockets = new Server(http);
    sockets.on('connection', async (socket) => {
      await socket.join(ADMINS_ROOM);
      socket.emit('joined');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    t.app.get(RealtimeService).attach(sockets);
    client = io(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, { transports: ['websocket'] });
    client.on('dataUpdate', (event) => events.push(event));
    // In the room once the server says so.
    await new Promise<void>((resolve) => client.once('joined', () => resolve()));
  });
  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => void sockets.close(() => resolve()));
    await t.close();
    await smtp.close();
  });

  /** Waits for the event of this type and message (events arrive asynchronously over the socket). */
  const eventArrives = async (type: string, message: string) => {
    const found = await eventually(
      async () => events.find((e) => e.type === type && e.message === message),
      10_000,
      `${type} event "${message}"`,
    );
    events.splice(events.indexOf(found), 1);
    return found;
  };

  it('GET /api/products lists every product with its unredeemed and redeemed code counts', async () => {
    const proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    await addCodes(t.db, proPlus, ['PL-1', 'PL-2', 'PL-3']);
    await redeem(t, 'PL-2');
    const res = await t.http().get('/api/products').set(auth).expect(200);
    expect(res.body.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining([PRODUCTS.proPlusWindows, PRODUCTS.homeBusinessWindows, PRODUCTS.homeBusinessMac]),
    );
    const pp = res.body.find((p: { id: string }) => p.id === proPlus);
    expect(pp).toEqual({
      id: proPlus,
      name: PRODUCTS.proPlusWindows,
      downloadLink: 'https://setup.office.com/',
      activationLink: null,
      removalToolLink: null,
      productKey: null,
      emailTemplate: expect.stringContaining('{{license_key}}'),
      emailSubject: expect.any(String),
      status: 'active',
      isLicenseManaged: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      unredeemedCount: 2,
      redeemedCount: 1,
      voidCount: 0,
      totalCount: 3,
    });
    const mac = res.body.find((p: { name: string }) => p.name === PRODUCTS.homeBusinessMac);
    expect(mac).toMatchObject({ isLicenseManaged: false, unredeemedCount: 0, redeemedCount: 0 });
  });

  it('POST /api/products creates a product; a duplicate name is a 409; bad input a 400', async () => {
    const res = await t
      .http()
      .post('/api/products')
      .set(auth)
      .send({ name: '  Office 2024 Standard  ', downloadLink: 'https://dl.example.com/std', isLicenseManaged: true })
      .expect(201);
    expect(res.body).toMatchObject({
      name: 'Office 2024 Standard',
      downloadLink: 'https://dl.example.com/std',
      status: 'active',
      isLicenseManaged: true,
      unredeemedCount: 0,
      redeemedCount: 0,
    });
    expect(await eventArrives('productUpdate', 'Product Office 2024 Standard created')).toBeDefined();

    const dup = await t.http().post('/api/products').set(auth).send({ name: 'Office 2024 Standard' }).expect(409);
    expect(dup.body.message).toBe('A product with this name already exists.');
    expect((await t.http().post('/api/products').set(auth).send({ name: ' ' }).expect(400)).body.message).toBe(
      'Product name is required',
    );
    expect(
      (
        await t
          .http()
          .post('/api/products')
          .set(auth)
          .send({ name: 'X', downloadLink: 'http://plain.example.com' })
          .expect(400)
      ).body.message,
    ).toBe('Must be an HTTPS URL');
    expect(
      (await t.http().post('/api/products').set(auth).send({ name: 'X', status: 'gone' }).expect(400)).body.message,
    ).toBe('Status must be active or inactive');
    const audit = await t.db.query(
      `SELECT resource_id, success FROM security_audit_log WHERE action = 'product.create' AND resource_id = $1`,
      [res.body.id],
    );
    expect(audit).toEqual([{ resource_id: res.body.id, success: true }]);
  });

  it("PUT /api/products/:id takes the editor's {emailSubject, emailTemplate} and leaves other fields alone", async () => {
    const id = await createProduct(t, auth, { name: 'Template Product', downloadLink: 'https://dl.example.com/tp' });
    const res = await t
      .http()
      .put(`/api/products/${id}`)
      .set(auth)
      .send({ emailSubject: 'Your key, {{customer_name}}', emailTemplate: '<p>Key: {{license_key}}</p>' })
      .expect(200);
    expect(res.body).toMatchObject({
      id,
      name: 'Template Product',
      downloadLink: 'https://dl.example.com/tp',
      emailSubject: 'Your key, {{customer_name}}',
      emailTemplate: '<p>Key: {{license_key}}</p>',
    });
    expect(await eventArrives('productUpdate', 'Product Template Product updated')).toBeDefined();

    const status = await t
      .http()
      .put(`/api/products/${id}`)
      .set(auth)
      .send({ status: 'inactive', productKey: 'PK-1' })
      .expect(200);
    expect(status.body).toMatchObject({
      status: 'inactive',
      productKey: 'PK-1',
      emailSubject: 'Your key, {{customer_name}}',
    });
    const [row] = await t.db.query(
      `SELECT details FROM security_audit_log WHERE action = 'product.update' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(row.details.fields.sort()).toEqual(['productKey', 'status']);

    await t
      .http()
      .put('/api/products/00000000-0000-4000-8000-000000000000')
      .set(auth)
      .send({ status: 'active' })
      .expect(404);
    expect((await t.http().put(`/api/products/${id}`).set(auth).send({}).expect(400)).body.message).toBe(
      'Nothing to update: send at least one product field.',
    );
    expect((await t.http().put(`/api/products/${id}`).set(auth).send({ name: '' }).expect(400)).body.message).toBe(
      'Product name is required',
    );
  });

  it('POST /api/products/:id/test-email sends the template with sample values', async () => {
    // Test e-mails go to staff addresses only (docs/product.md §18.6): editor@example.com is an admin account.
    await createAdminUser(t, { username: 'editor', role: 'operator' });
    const id = await createProduct(t, auth, {
      name: 'Mail Product',
      downloadLink: 'https://dl.example.com/mail',
      emailSubject: 'Order for {{customer_name}}',
      emailTemplate: '<p>{{customer_name}} / {{voucher_code}} / {{license_key}} / {{download_link}}</p>',
    });
    const before = smtp.messages.length;
    const res = await t
      .http()
      .post(`/api/products/${id}/test-email`)
      .set(auth)
      .send({ to: ' Editor@Example.com ' })
      .expect(200);
    expect(res.body).toEqual({ message: 'Test email sent to editor@example.com' });
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail.subject).toBe('[TEST] Order for John Doe');
    expect(mail.to).toMatchObject({ text: 'editor@example.com' });
    expect(mail.html).toContain(
      '<p>John Doe / SAMPLE-VOUCHER-1234 / XXXXX-XXXXX-XXXXX-XXXXX-XXXXX / https://dl.example.com/mail</p>',
    );

    // The editor's unsaved template is what gets tested, when given.
    await t
      .http()
      .post(`/api/products/${id}/test-email`)
      .set(auth)
      .send({ to: 'editor@example.com', emailSubject: 'Draft', emailTemplate: '<b>{{voucher_code}}</b>' })
      .expect(200);
    const [draft] = (await smtp.waitFor(before + 2)).slice(before + 1);
    expect(draft.subject).toBe('[TEST] Draft');
    expect(draft.html).toContain('<b>SAMPLE-VOUCHER-1234</b>');

    expect(
      (await t.http().post(`/api/products/${id}/test-email`).set(auth).send({ to: 'nope' }).expect(400)).body.message,
    ).toBe('Invalid email address');

    // The default admin's own address (ADMIN_EMAIL's default, no top-level domain) takes a test e-mail.
    await t.http().post(`/api/products/${id}/test-email`).set(auth).send({ to: 'admin@localhost' }).expect(200);
    const [own] = (await smtp.waitFor(before + 3)).slice(before + 2);
    expect(own.to).toMatchObject({ text: 'admin@localhost' });
  });

  it('an upload announces a voucherUpdate to admins', async () => {
    const id = await createProduct(t, auth, { name: 'Realtime Upload Product' });
    await t
      .http()
      .post(`/api/products/${id}/voucher-codes`)
      .set(auth)
      .attach('file', Buffer.from('RT-1\nRT-2\n'), 'codes.txt')
      .expect(201);
    expect(await eventArrives('voucherUpdate', '2 voucher code(s) uploaded for Realtime Upload Product')).toBeDefined();
  });
});
