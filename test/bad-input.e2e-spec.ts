import { connect } from 'net';
import { invalidTextMessage } from '../backend/src/common/input-text';
import { createProduct } from './helpers/admin-data';
import { startTestApp, TestApp } from './helpers/app';
import { CustomerTokenService } from '../backend/src/modules/auth/customer-token.service';
import { bearer, tokenFor } from './helpers/auth';
import { randomCode, redeemBody } from './helpers/factories';

/**
 * Issue 24 item 7, "bad input never 500": every string the API reads (every string field of every JSON request body
 * the served OpenAPI document declares, every query and path parameter) refuses a lone UTF-16 surrogate and a NUL
 * character with 400 naming the field, before any rule of the route runs, and nothing is written. A malformed or
 * oversized body gets a clear 400/413. Sent as an admin, so the permission guard lets every request through to the
 * check (common/validation.ts, common/input-text.ts).
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const SURROGATE = '\ud800';
const NUL = '\u0000';
const ANY_ID = '00000000-0000-4000-8000-000000000000';

interface Operation {
  name: string;
  method: string;
  path: string;
  op: any;
}

/** The body `{a: {b: [x]}}` for the path ['a', 'b', 0]. */
function bodyWith(path: Array<string | number>, value: string): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [bodyWith(rest, value)] : { [head]: bodyWith(rest, value) };
}

const bad = (field: string) => ({
  statusCode: 400,
  message: invalidTextMessage(field),
  error: 'Bad Request',
  errors: [{ field, message: invalidTextMessage(field) }],
});

describe('Bad input never answers 500 and changes nothing', () => {
  let t: TestApp;
  let doc: any;
  let auth: { Authorization: string };
  /** The licence centre's routes take a customer's token only (docs/auth.md), so their input reaches the pipe with it. */
  let customerAuth: { Authorization: string };
  let tables: string[];

  const operations = (): Operation[] =>
    Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op })),
    );
  const resolve = (schema: any): any => {
    if (!schema?.$ref) return schema;
    return resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  };
  /** The path of every string in a JSON schema (array items as index 0; each alternative of oneOf/anyOf/allOf). */
  type Path = Array<string | number>;
  const stringPaths = (schema: any, at: Path = [], seen = new Set<any>()): Path[] => {
    const s = resolve(schema);
    if (!s || seen.has(s)) return [];
    const inner = new Set(seen).add(s);
    const alternatives = [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])];
    const out = alternatives.flatMap((alt: any) => stringPaths(alt, at, inner));
    if (s.type === 'string') out.push(at);
    if (s.type === 'array') out.push(...stringPaths(s.items, [...at, 0], inner));
    for (const [key, prop] of Object.entries(s.properties ?? {})) out.push(...stringPaths(prop, [...at, key], inner));
    return out;
  };
  const urlOf = (path: string) => path.replace(/\{\w+\}/g, ANY_ID);
  const isCustomerRoute = (o: Operation) => (o.op.security ?? []).some((s: object) => 'customer' in s);
  const call = (o: Operation, url = urlOf(o.path)) =>
    (t.http() as any)[o.method](url).set(isCustomerRoute(o) ? customerAuth : auth);
  /** Every table's content as one digest per table: any insert, update or delete shows. */
  const snapshot = async () => {
    const digests = await Promise.all(
      tables.map(async (table) => {
        const [row] = await t.db.query(
          `SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS digest FROM "${table}" x`,
        );
        return [table, row.digest] as const;
      }),
    );
    return Object.fromEntries(digests);
  };

  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.http().get('/api/docs-json').expect(200)).body;
    auth = bearer(await tokenFor(t, 'admin'));
    const [customer] = await t.db.query(
      `INSERT INTO customers (first_name, last_name, email) VALUES ('Bad', 'Input', 'bad-input@example.com') RETURNING id`,
    );
    const { customerToken } = await t.app
      .get(CustomerTokenService)
      .issue(customer.id, 'bad-input@example.com', new Date());
    customerAuth = bearer(customerToken);
    // Something to find, so a route that did run would have rows to change.
    await createProduct(t, auth);
    tables = (await t.db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).map(
      (r: { tablename: string }) => r.tablename,
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a lone surrogate or a NUL in any string field of any JSON body: 400 naming the field, no write', async () => {
    const jsonBodies = operations().filter((o) => o.op.requestBody?.content?.['application/json']);
    expect(jsonBodies.length).toBeGreaterThan(15);
    const wrong: string[] = [];
    let sent = 0;
    for (const o of jsonBodies) {
      const paths = stringPaths(o.op.requestBody.content['application/json'].schema);
      const before = await snapshot();
      for (const path of paths) {
        for (const [label, value] of [
          ['lone surrogate', `a${SURROGATE}b`],
          ['NUL', `a${NUL}b`],
        ]) {
          // JSON.stringify writes both as escapes (`"a\ud800b"`, `"a\u0000b"`): valid JSON, plain ASCII on the wire.
          const text = JSON.stringify(bodyWith(path, value));
          const res = await call(o).set('Content-Type', 'application/json').send(text);
          sent++;
          const field = path.join('.');
          if (JSON.stringify(res.body) !== JSON.stringify(bad(field)) || res.status !== 400) {
            wrong.push(`${o.name} ${label} in ${field}: ${res.status} ${JSON.stringify(res.body)}`);
          }
        }
      }
      const after = await snapshot();
      const changed = tables.filter((table) => before[table] !== after[table]);
      if (changed.length) wrong.push(`${o.name}: wrote to ${changed.join(', ')}`);
    }
    expect(wrong).toEqual([]);
    expect(sent).toBeGreaterThan(60);
  });

  it('the JSON text carries a real lone surrogate (not one replaced by U+FFFD on the way)', async () => {
    const res = await t
      .http()
      .post('/api/admin/create-shop-manager')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"email":"\\ud800@example.com"}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(bad('email'));
    expect(await t.db.query(`SELECT 1 FROM admin_users WHERE role = 'shop_manager'`)).toEqual([]);
  });

  it('a NUL in a property name: 400 on the object holding it', async () => {
    const res = await t
      .http()
      .post('/api/products')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"name":"Fine","x\\u0000y":1}');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(invalidTextMessage(''));
    expect(await t.db.query(`SELECT 1 FROM products WHERE name = 'Fine'`)).toEqual([]);
  });

  it('a NUL in any query parameter of any route: 400 naming the parameter', async () => {
    const wrong: string[] = [];
    const withQuery = operations().filter((o) => (o.op.parameters ?? []).some((p: any) => p.in === 'query'));
    expect(withQuery.length).toBeGreaterThan(5);
    const before = await snapshot();
    for (const o of withQuery) {
      for (const p of o.op.parameters.filter((q: any) => q.in === 'query')) {
        const res = await call(o, `${urlOf(o.path)}?${encodeURIComponent(p.name)}=a%00b`);
        if (res.status !== 400 || JSON.stringify(res.body) !== JSON.stringify(bad(p.name))) {
          wrong.push(`${o.name} ?${p.name}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('a NUL in any path parameter of any route: 400 naming the parameter', async () => {
    const wrong: string[] = [];
    const withParams = operations().filter((o) => /\{\w+\}/.test(o.path));
    expect(withParams.length).toBeGreaterThan(10);
    const before = await snapshot();
    for (const o of withParams) {
      const [, param] = /\{(\w+)\}/.exec(o.path)!;
      const url = urlOf(o.path.replace(`{${param}}`, 'a%00b'));
      const res = await call(o, url).set('Content-Type', 'application/json').send('{}');
      if (res.status !== 400 || JSON.stringify(res.body) !== JSON.stringify(bad(param))) {
        wrong.push(`${o.name} {${param}}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('a URL whose percent-encoding is not UTF-8 (an encoded surrogate): 400, or the text kept as it came', async () => {
    const path = await t.http().get('/api/products/%ED%A0%80').set(auth);
    expect(path.status).toBe(400);
    expect(path.body).toEqual({
      statusCode: 400,
      message: 'The URL contains an invalid percent-encoding',
      error: 'Bad Request',
    });
    // A query value that does not decode stays the literal text: a search that finds nothing.
    const query = await t.http().get('/api/redemptions?search=a%ED%A0%80b').set(auth);
    expect(query.status).toBe(200);
    expect(query.body.redemptions).toEqual([]);
  });

  it('a NUL in a header: refused by the HTTP server before the app, never a 500', async () => {
    const { port } = new URL(t.baseUrl);
    const answer = await new Promise<string>((resolveAnswer, reject) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /api/admin/login HTTP/1.1\r\nHost: x\r\nUser-Agent: a\u0000b\r\nContent-Type: application/json\r\n' +
            'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
        );
      });
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolveAnswer(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
  });

  it('a NUL in an uploaded file name (RFC 5987 `filename*`): 400 with the reason, no code, no batch', async () => {
    const productId = await createProduct(t, auth);
    const batches = `SELECT id FROM upload_batches WHERE product_id = $1 ORDER BY id`;
    const batchesBefore = await t.db.query(batches, [productId]);
    // A raw NUL in a part's header is refused by the multipart parser; `filename*` percent-encodes one past it.
    const body = [
      '--b0undary',
      `Content-Disposition: form-data; name="file"; filename*=UTF-8''co%00des.txt`,
      'Content-Type: text/plain',
      '',
      'CODE-1\nCODE-2',
      '--b0undary--',
      '',
    ].join('\r\n');
    const res = await t
      .http()
      .post(`/api/products/${productId}/voucher-codes`)
      .set(auth)
      .set('Content-Type', 'multipart/form-data; boundary=b0undary')
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'The file name contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate).',
    );
    expect(await t.db.query(`SELECT 1 FROM voucher_codes WHERE product_id = $1`, [productId])).toEqual([]);
    expect(await t.db.query(batches, [productId])).toEqual(batchesBefore);
  });

  it('JSON nested deeper than 32 levels: 400 saying so on every JSON route; nothing written', async () => {
    const before = await snapshot();
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    // ~1,400 levels answered 500 on every route; brackets inside strings do not count.
    const deep = `{"voucherCode":${nested(1400)}}`;
    const tooDeep = {
      statusCode: 400,
      message: 'The request body is nested too deeply (at most 32 levels)',
      error: 'Bad Request',
    };
    const postJson = (url: string, text: string, headers: Record<string, string> = auth) =>
      t.http().post(url).set(headers).set('Content-Type', 'application/json').send(text);
    for (const [url, headers] of [
      ['/api/redeem-voucher', {}],
      ['/api/customer/access', {}],
      ['/api/products', auth],
    ] as const) {
      const res = await postJson(url, deep, headers);
      expect([url, res.status, res.body]).toEqual([url, 400, tooDeep]);
      const justOver = await postJson(url, `{"a":${nested(32)}}`, headers);
      expect([url, justOver.status, justOver.body]).toEqual([url, 400, tooDeep]);
    }
    // Every route that takes a JSON body, as an admin (or the customer), refuses it the same way.
    const jsonRoutes = operations().filter((o) => o.op.requestBody?.content?.['application/json']);
    expect(jsonRoutes.length).toBeGreaterThan(20);
    for (const o of jsonRoutes) {
      const res = await call(o).set('Content-Type', 'application/json').send(deep);
      expect([o.name, res.status, res.body]).toEqual([o.name, 400, tooDeep]);
    }
    expect(await snapshot()).toEqual(before);

    // At the bound, and with any number of brackets inside strings, the body reaches the route as before.
    const strings = JSON.stringify({ name: `${'['.repeat(500)}"{{`, description: '\\"]]]' });
    for (const text of [`{"a":${nested(31)}}`, strings]) {
      const res = await postJson('/api/products', text);
      expect([text.slice(0, 20), res.status, res.body.message]).toEqual([
        text.slice(0, 20),
        400,
        expect.not.stringMatching(/nested too deeply/),
      ]);
    }
    // A normal body still works: a product is created, an unknown code is the unknown-code answer.
    await createProduct(t, auth);
    const unknown = await postJson(
      '/api/redeem-voucher',
      JSON.stringify(redeemBody({ voucherCode: randomCode('DEPTH') })),
      {},
    );
    expect(unknown.status).toBe(404);
  });

  it('malformed JSON: 400 saying so; an oversized body: 413 saying the limit; nothing written', async () => {
    const before = await snapshot();
    const postJson = (text: string) =>
      t.http().post('/api/products').set(auth).set('Content-Type', 'application/json').send(text);
    const malformed = await postJson('{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      statusCode: 400,
      message: 'The request body is not valid JSON',
      error: 'Bad Request',
    });
    const huge = JSON.stringify({ name: 'x'.repeat(200 * 1024) });
    const oversized = await postJson(huge);
    expect(oversized.status).toBe(413);
    expect(oversized.body).toEqual({
      statusCode: 413,
      message: 'The request body is too large (at most 100 kB)',
      error: 'Payload Too Large',
    });
    expect(await snapshot()).toEqual(before);
  });
});
