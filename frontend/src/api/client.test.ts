import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';
import { setAccessTokenGetter } from '../app/authorizedFetch';
import { makeStore } from '../app/store';
import { storeSession } from '../features/licence-centre/licenceCentreApi';
import { declaredSuccess, fakeServer } from '../test/fakeServer';
import { client } from '.';
import document from './openapi.json';

const SRC = join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** `CustomerCentreController_licences` → `customerCentreControllerLicences`, the generator's endpoint name. */
const endpointName = (operationId: string) =>
  operationId.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toLowerCase());

const operations = Object.values(document.paths).flatMap((item) =>
  Object.values(item as Record<string, { operationId: string; security?: Array<Record<string, unknown>> }>),
);
const endpoints = client.endpoints as unknown as Record<string, { initiate: (arg: unknown) => any }>;

let server: ReturnType<typeof fakeServer> | undefined;
afterEach(() => {
  server?.restore();
  setAccessTokenGetter(undefined);
  storeSession(null);
});

describe('the generated API client', () => {
  it('declares every endpoint: no file outside api/generated/ injects one, only api/index.ts enhances them', () => {
    const found = sourceFiles(SRC)
      .filter((file) => !relative(SRC, file).startsWith('api/generated/'))
      .flatMap((file) =>
        [
          ...readFileSync(file, 'utf8').matchAll(
            /\b(injectEndpoints|enhanceEndpoints|build(?:er)?\.(?:query|mutation))\b/g,
          ),
        ]
          .map((m) => `${relative(SRC, file)}: ${m[1]}`)
          .filter((use) => use !== 'api/index.ts: enhanceEndpoints'),
      );
    expect(found).toEqual([]);
  });

  it("sends the licence centre's customer token to the routes that take it, never the console's token", async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    // Each route the document secures with the customer token, and what it is called with here.
    const calls: Record<string, unknown> = {
      customerCentreControllerLicences: undefined,
      customerCentreControllerResend: id,
      customerCentreControllerErase: { confirm: true },
    };
    const customerRoutes = operations
      .filter((op) => op.security?.some((s) => 'customer' in s))
      .map((op) => endpointName(op.operationId))
      // The data download is a plain fetch (licenceCentreApi.ts), not an endpoint.
      .filter((name) => name in endpoints);
    expect(customerRoutes.sort()).toEqual(Object.keys(calls).sort());

    server = fakeServer({ 'GET /api/*': declaredSuccess, 'POST /api/*': declaredSuccess });
    setAccessTokenGetter(() => 'staff-token');
    storeSession({
      customerToken: 'customer-token',
      email: 'a@example.com',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const store = makeStore();
    for (const [name, arg] of Object.entries(calls)) await store.dispatch(endpoints[name].initiate(arg));
    // A console route beside them still carries the console's token.
    await store.dispatch(endpoints.authControllerMe.initiate(undefined));

    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.auth}`)).toEqual([
      'GET /api/customer/licences Bearer customer-token',
      `POST /api/customer/licences/${id}/resend Bearer customer-token`,
      'POST /api/customer/erasure Bearer customer-token',
      'GET /api/admin/me Bearer staff-token',
    ]);
  });
});
