import http from 'http';
import https from 'https';
import type { LookupFunction } from 'net';
import { resolveWebhookTarget, WebhookUrlPolicy } from '../webhook/webhook-url-guard';
import { withDeadline } from '../webhook/webhook-http';
import { signedHeaders } from './marketplace-signature';

/** A marketplace's answer is read up to this many bytes (a pull's page of events may be large). */
const ANSWER_LIMIT = 16 * 1024 * 1024;

export interface MarketplaceAnswer {
  status: number;
  body: string;
}

export interface MarketplaceCall {
  baseUrl: string;
  secret: string;
  policy: WebhookUrlPolicy;
  timeoutMs: number;
  now: () => Date;
}

/**
 * One signed call to `{baseUrl}{path}` (docs/product.md §24.2): the base URL is checked by the webhook SSRF guard on
 * every call and the connection goes to the address it checked; redirects are not followed; the whole exchange (DNS
 * included) has `timeoutMs`. GET calls sign an empty body. Throws on a network error or the timeout; any status is an
 * answer.
 */
export async function callMarketplace(
  call: MarketplaceCall,
  method: 'GET' | 'POST',
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<MarketplaceAnswer> {
  const budget = call.timeoutMs;
  const started = Date.now();
  const base = call.baseUrl.replace(/\/+$/, '');
  const target = await withDeadline(
    resolveWebhookTarget(`${base}${path}`, call.policy),
    budget,
    timeoutMessage(budget),
  );
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const unix = Math.floor(call.now().getTime() / 1000);
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<MarketplaceAnswer>((resolve, reject) => {
    const req = client.request(target.url, {
      method,
      agent: false,
      lookup: pinned,
      headers: {
        ...headers,
        ...signedHeaders(call.secret, unix, body),
        'user-agent': 'office-licences-marketplace/1',
        accept: 'application/json',
        ...(method === 'POST'
          ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
          : {}),
      },
    });
    const timer = setTimeout(
      () => req.destroy(new Error(timeoutMessage(budget))),
      Math.max(1, budget - (Date.now() - started)),
    );
    const finish = (err: Error | null, answer?: MarketplaceAnswer) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(answer!);
    };
    req.on('error', (err) => finish(err));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > ANSWER_LIMIT) return req.destroy(new Error('The marketplace answer is too large'));
        chunks.push(chunk);
      });
      res.on('end', () => finish(null, { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => finish(err));
    });
    req.end(method === 'POST' ? body : undefined);
  });
}

const timeoutMessage = (ms: number) => `No answer within ${ms} ms`;

/** A 2xx answer's JSON body; anything else throws with the status. */
export function answerJson(answer: MarketplaceAnswer): unknown {
  if (answer.status < 200 || answer.status > 299) throw new Error(`The marketplace answered ${answer.status}`);
  try {
    return JSON.parse(answer.body);
  } catch {
    throw new Error('The marketplace answered something that is not JSON');
  }
}
