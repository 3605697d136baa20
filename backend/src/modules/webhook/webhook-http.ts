import http from 'http';
import https from 'https';
import type { LookupFunction } from 'net';
import { WebhookTarget } from './webhook-url-guard';

/** The receiver's answer is kept up to this many bytes (issue 11: never more than 1 KB stored). */
export const RESPONSE_BODY_LIMIT = 1024;

export interface WebhookResponse {
  status: number;
  body: string;
}

/**
 * How long an outbox row (a webhook delivery, a marketplace report) is claimed for one attempt: twice the call's
 * budget and 5 s for the writes around it: a worker that dies mid-attempt holds its row that long, and no longer.
 * A claim that ends before a stalled attempt does lets a second send happen, which the receiver's idempotency key
 * (the delivery id, the redemption id) makes harmless.
 */
export const claimSecondsFor = (timeoutMs: number): number => Math.ceil((timeoutMs * 2) / 1000) + 5;

/** `work`, or a rejection with `message` once `ms` have passed (a DNS answer that never comes holds no worker). */
export function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * POSTs `body` to a checked target: the connection goes to `target.address` whatever DNS says now (the URL's host
 * name still names the TLS server and the Host header), redirects are not followed, and the whole exchange has
 * `timeoutMs` (what is left of the attempt's budget, which the error names: `budgetMs`). Throws on a network error or the
 * timeout; any HTTP status is an answer.
 */
export function postWebhook(
  target: WebhookTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  budgetMs = timeoutMs,
): Promise<WebhookResponse> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<WebhookResponse>((resolve, reject) => {
    const req = client.request(target.url, {
      method: 'POST',
      agent: false,
      lookup: pinned,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    const timer = setTimeout(() => req.destroy(new Error(`No answer within ${budgetMs} ms`)), timeoutMs);
    const finish = (err: Error | null, response?: WebhookResponse) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(response!);
    };
    req.on('error', (err) => finish(err));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        finish(null, {
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
        });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_BODY_LIMIT) return;
        chunks.push(chunk);
        size += chunk.length;
        // Enough kept: the rest of a large answer is not read.
        if (size >= RESPONSE_BODY_LIMIT) done();
      });
      res.on('end', done);
      res.on('error', (err) => finish(err));
    });
    req.end(body);
  });
}
