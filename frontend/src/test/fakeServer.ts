/**
 * The network edge for component tests: answers the app's fetch calls with the status and JSON bodies the
 * API sends (see backend redemption controller and error filter). The real API is exercised by the
 * browser flows in test/browser.
 */
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
};
