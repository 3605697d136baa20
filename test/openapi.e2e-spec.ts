import { execFile } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { startTestApp, TestApp } from './helpers/app';
import { ROUTE_PERMISSIONS } from './route-permissions';
import { ApiContract } from './helpers/contract';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DOCUMENT_FILE, GENERATED_DIR, generateApiClient } = require('../scripts/api-contract');

/**
 * The OpenAPI document the real app serves (/api/docs-json) passes Redocly's recommended rules (redocly.yaml) with
 * no error and no warning, and keeps the house rules Redocly does not know: every operation declares a success
 * response with a schema and its error responses with the error schema, and every non-public route bearer
 * security. A failure names the operations to fix; docs/api.md "Declaring a route in OpenAPI" says how.
 */
const ROOT = join(__dirname, '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer: string }>;
}

/** `#/paths/~1api~1products~1{id}/get/responses` → `GET /api/products/{id}` (else the pointer as it is). */
function operationOf(pointer: string): string {
  const [, path, method] = /^#\/paths\/([^/]+)\/([a-z]+)/.exec(pointer) ?? [];
  if (!path || !METHODS.includes(method)) return pointer;
  return `${method.toUpperCase()} ${path.replace(/~1/g, '/').replace(/~0/g, '~')}`;
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  let dir: string;
  const operations = () =>
    Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, path, method, op })),
    );

  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.http().get('/api/docs-json').expect(200)).body;
    dir = mkdtempSync(join(tmpdir(), 'ovr-openapi-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('passes `redocly lint` with the recommended rules: 0 errors, 0 warnings', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const args = [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    // redocly exits 1 when it finds errors; its JSON report is on stdout either way.
    const stdout = await promisify(execFile)(process.execPath, args, { env, maxBuffer: 32 * 1024 * 1024 }).then(
      (r) => r.stdout,
      (err: { stdout?: string }) => err.stdout ?? '',
    );
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { problems: Problem[] };
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${operationOf(p.location[0]?.pointer ?? '')}: ${p.message}`,
    );
    expect(problems).toEqual([]);
  });

  it('says where it is served and that it describes every registered route', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    const documented = operations()
      .map((o) => o.name.replace(/\{(\w+)\}/g, ':$1'))
      .sort();
    expect(documented).toEqual(Object.keys(ROUTE_PERMISSIONS).sort());
  });

  it('every operation declares a success response with a schema and its errors with a schema', () => {
    const missing = operations().flatMap(({ name, op }) => {
      const responses: Record<string, any> = op.responses ?? {};
      const success = Object.entries(responses).filter(([status]) => /^2\d\d$/.test(status));
      const errors = Object.entries(responses).filter(([status]) => /^[45]\d\d$/.test(status));
      const out: string[] = [];
      // A redirect (single sign-on) succeeds with a 302 that says where to.
      const redirect = responses['302']?.headers?.Location?.schema;
      if (!redirect && !success.some(([, r]) => Object.values<any>(r.content ?? {}).some((media) => media.schema))) {
        out.push(`${name}: no 2xx response with a schema`);
      }
      if (!errors.length) out.push(`${name}: no error response`);
      for (const [status, r] of errors) {
        if (!r.content?.['application/json']?.schema) out.push(`${name}: ${status} without a schema (ErrorResponse)`);
      }
      return out;
    });
    expect(missing).toEqual([]);
  });

  it('every route that is not public requires the bearer token (customer routes the customer token); public routes say they need none', () => {
    const wrong = operations().flatMap(({ name, op }) => {
      const route = name.replace(/\{(\w+)\}/g, ':$1');
      const access = ROUTE_PERMISSIONS[route];
      const expected = access === 'public' ? [{}] : access === 'customer' ? [{ customer: [] }] : [{ bearer: [] }];
      return JSON.stringify(op.security) === JSON.stringify(expected)
        ? []
        : [`${name}: security ${JSON.stringify(op.security)}`];
    });
    expect(wrong).toEqual([]);
  });
});

describe('the API contract (docs/architecture.md "The API contract")', () => {
  let t: TestApp;
  let served: any;
  beforeAll(async () => {
    t = await startTestApp();
    served = (await t.http().get('/api/docs-json').expect(200)).body;
  });
  afterAll(() => t.close());

  it('the checked-in document (frontend/src/api/openapi.json) is the one the app serves: else `npm run api:generate`', () => {
    expect(JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'))).toEqual(served);
  });

  it('the frontend API client (frontend/src/api/generated/) is generated from it: else `npm run api:generate`', async () => {
    const files: Record<string, string> = await generateApiClient();
    const checkedIn = Object.fromEntries(
      readdirSync(GENERATED_DIR).map((name) => [name, readFileSync(join(GENERATED_DIR, name), 'utf8')]),
    );
    expect(checkedIn).toEqual(files);
  });

  it('the contract helper every e2e request goes through fails an undeclared status and a body off its schema', () => {
    const contract = new ApiContract(served);
    expect(contract.check('GET', '/api/no-such-route', 404, 'application/json', {})).toBeUndefined();
    expect(contract.check('GET', '/api/admin/me', 418, 'application/json', {})?.message).toMatch(
      /^answered 418, which it does not declare \(declared: 200, 401, 403, 429\)$/,
    );
    const error = { statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' };
    expect(contract.check('GET', '/api/admin/me', 500, 'application/json', error)).toBeUndefined();
    const me = {
      id: '00000000-0000-4000-8000-000000000001',
      username: 'admin',
      email: 'admin@localhost',
      role: 'admin',
      permissions: ['dashboard.view'],
      twoFactorEnabled: false,
    };
    expect(contract.check('GET', '/api/admin/me', 200, 'application/json; charset=utf-8', me)).toBeUndefined();
    expect(contract.check('GET', '/api/admin/me', 200, 'application/json', { ...me, extra: 1 })?.message).toContain(
      "must NOT have additional properties 'extra'",
    );
    expect(contract.check('GET', '/api/admin/me', 200, 'application/json', { id: 'x' })?.message).toContain(
      "must have required property 'username'",
    );
  });
});

describe('API docs in production', () => {
  it('are off by default with NODE_ENV=production (404), and served with API_DOCS=public', async () => {
    const production = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://licences.example.test',
      DATA_KEY: Buffer.alloc(32, 9).toString('base64'),
      SMTP_URL: 'smtp://127.0.0.1:1',
    };
    const off = await startTestApp(production);
    try {
      expect(off.config.apiDocs).toBe('off');
      await off.http().get('/api/docs-json').expect(404);
      await off.http().get('/api/docs').expect(404);
      await off.http().get('/api/docs/').expect(404);
      // The API itself is untouched.
      await off.http().get('/api/health').expect(200);
    } finally {
      await off.close();
    }
    const shown = await startTestApp({ ...production, API_DOCS: 'public' });
    try {
      const doc = (await shown.http().get('/api/docs-json').expect(200)).body;
      expect(Object.keys(doc.paths)).toContain('/api/webhooks');
      await shown
        .http()
        .get('/api/docs')
        .expect((res) => expect([200, 301]).toContain(res.status));
    } finally {
      await shown.close();
    }
  });
});
