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
 * every call and the connection goes to the address it checked (a kept one, of that address's pool); redirects are not
 * followed; the whole exchange (DNS included) has `timeoutMs`. GET calls sign an empty body. Throws on a network error
 * or the timeout; any status is an answer.
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
  const unix = Math.floor(call.now().getTime() / 1000);
  const request = {
    method,
    headers: {
      ...headers,
      ...signedHeaders(call.secret, unix, body),
      'user-agent': 'office-licences-marketplace/1',
      accept: 'application/json',
      ...(method === 'POST'
        ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
        : {}),
    },
  };
  const attempt = () => send(target, request, method === 'POST' ? body : undefined, budget, started);
  try {
    return await attempt();
  } catch (err) {
    // A kept connection the marketplace closed as it was reused: every call is safe to repeat (a check reads, a report
    // carries its Idempotency-Key, a pull its cursor), once, within the same budget.
    if (!(err instanceof ReusedSocketClosed)) throw err;
    if (Date.now() - started >= budget) throw err.cause;
    return attempt();
  }
}

/** The error of a request on a kept connection that the other end had closed (Node.js's advice: send it again). */
class ReusedSocketClosed extends Error {}

/**
 * Kept connections, one pool per checked address (and protocol, port and host name): a connection only ever goes to
 * the address the SSRF guard checked for its call. An idle connection is closed after 4 s, before the 5 s after which
 * Node.js's own servers close theirs; at most 64 per address. An idle one keeps no process alive (the agent unrefs it).
 */
const agents = new Map<string, http.Agent>();
const MAX_AGENTS = 256;
const KEEP_ALIVE = { keepAlive: true, timeout: 4_000, maxSockets: 64, maxFreeSockets: 16 };

function agentFor(target: ResolvedTarget): http.Agent {
  const key = `${target.url.protocol}//${target.url.hostname}@${target.address}:${target.url.port}`;
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldest] = agents;
      oldest[1].destroy();
      agents.delete(oldest[0]);
    }
    agent = target.url.protocol === 'https:' ? new https.Agent(KEEP_ALIVE) : new http.Agent(KEEP_ALIVE);
    agents.set(key, agent);
  }
  return agent;
}

type ResolvedTarget = Awaited<ReturnType<typeof resolveWebhookTarget>>;

function send(
  target: ResolvedTarget,
  options: http.RequestOptions,
  body: string | undefined,
  budget: number,
  started: number,
): Promise<MarketplaceAnswer> {
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<MarketplaceAnswer>((resolve, reject) => {
    const req = client.request(target.url, { ...options, agent: agentFor(target), lookup: pinned });
    const timer = setTimeout(
      () => req.destroy(new Error(timeoutMessage(budget))),
      Math.max(1, budget - (Date.now() - started)),
    );
    let answered = false;
    const finish = (err: Error | null, answer?: MarketplaceAnswer) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(answer!);
    };
    req.on('error', (err: NodeJS.ErrnoException) => {
      const closedUnderUs = req.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish(closedUnderUs ? new ReusedSocketClosed(err.message, { cause: err }) : err);
    });
    req.on('response', (res) => {
      answered = true;
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
    req.end(body);
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
