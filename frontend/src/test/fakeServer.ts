import { ApiContract, contractError } from '../../../test/helpers/contract';
import document from '../api/openapi.json';

/**
 * The network edge for component tests: answers the app's fetch calls with the status and JSON bodies the
 * API sends (see backend redemption controller and error filter). The real API is exercised by the
 * browser flows in test/browser.
 *
 * Every answer keeps the API contract: its status is one the operation declares in the OpenAPI document the API
 * serves (the checked-in copy, api/openapi.json) and its JSON body validates against the declared schema
 * (test/helpers/contract.ts, the same check as every e2e response). A fake that breaks it fails its test
 * (`failOnContractViolations`, run after each test by test/setup.ts), so the fakes cannot drift from the API; a
 * faked call must be an operation of the document (the app calls no route the API lacks). A call no handler takes is
 * answered 404 and not checked.
 */
const contract = new ApiContract(document as never);
const violations: Error[] = [];

/** A handler answering the operation's first declared success with the smallest body its schema allows. */
export const declaredSuccess: Handler = (req) => contract.success(req.method, req.path);

/** The contract violations of the fakes' answers since the last call, as one error (test/setup.ts afterEach). */
export function failOnContractViolations(): void {
  const found = violations.splice(0);
  if (found.length) throw new Error(found.map((e) => e.message).join('\n\n'));
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  auth: string | null;
  headers: Headers;
}
export interface FakeAnswer {
  status: number;
  /** Sent as JSON, or as it is when a string (e.g. a CSV download). */
  body?: unknown;
  headers?: Record<string, string>;
}
export type Handler = (req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>;

/**
 * Keys are "METHOD /path"; a trailing `*` matches any rest of the path. Unknown calls answer 404 like the
 * server. Every request is kept with its query string and Authorization header.
 */
export function fakeServer(handlers: Record<string, Handler>) {
  const requests: FakeRequest[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(request.url);
    const text = await request.text();
    const req: FakeRequest = {
      method: request.method,
      path: url.pathname,
      query: url.searchParams,
      body: text ? JSON.parse(text) : undefined,
      auth: request.headers.get('Authorization'),
      headers: request.headers,
    };
    requests.push(req);
    const handler =
      handlers[`${req.method} ${req.path}`] ?? Object.entries(handlers).find(([key]) => matches(key, req))?.[1];
    const answer: FakeAnswer = handler
      ? await handler(req)
      : { status: 404, body: { statusCode: 404, message: `Cannot ${req.method} ${req.path}`, error: 'Not Found' } };
    const raw = answer.body === undefined || typeof answer.body === 'string';
    const contentType = raw ? answer.headers?.['Content-Type'] : 'application/json';
    // The 404 of a call no handler takes is the fake's own "not faked", not an answer of the API.
    const violation =
      handler !== undefined && contract.check(req.method, req.path, answer.status, contentType, answer.body);
    if (violation) violations.push(contractError(violation, `${req.method} ${req.path}`, answer.body));
    // A faked call the API does not have: the app calls a route that is not in the document.
    if (handler !== undefined && req.path.startsWith('/api/') && !contract.has(req.method, req.path)) {
      violations.push(
        new Error(`API contract (OpenAPI document): ${req.method} ${req.path} is no operation of the API`),
      );
    }
    return new Response(
      answer.body === undefined ? null : raw ? (answer.body as string) : JSON.stringify(answer.body),
      {
        status: answer.status,
        headers: { ...(raw ? {} : { 'Content-Type': 'application/json' }), ...answer.headers },
      },
    );
  };
  return {
    requests,
    of: (method: string, path: string) => requests.filter((r) => r.method === method && r.path === path),
    restore: () => {
      globalThis.fetch = original;
    },
  };
}

/** "GET /api/success-token/*" matches any last segment. */
function matches(key: string, req: FakeRequest): boolean {
  const [method, pattern] = key.split(' ');
  if (method !== req.method || !pattern.endsWith('*')) return false;
  return req.path.startsWith(pattern.slice(0, -1));
}

export const PUBLIC_CONFIG = {
  supportEmail: 'help@licences.test',
  companyName: 'Licence Desk Ltd',
  companyAddress: '1 Main St, Dover, DE 19901, USA',
  ssoDisplayName: null,
};
