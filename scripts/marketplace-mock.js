#!/usr/bin/env node
// The reference marketplace (docs/product.md §24, docs/marketplaces.md): the marketplace side of the protocol, for
// development and the demo. It connects itself through the admin API, pushes signed `voucher.created` events with
// fresh codes, answers the live check, acknowledges every report once per Idempotency-Key, serves the pull, and
// refunds a code when told so on stdin (`refund <CODE>`). No dependencies: Node's http and crypto only.
//
//   npm run demo                        # the demo starts this marketplace itself (DEMO_MARKETPLACE=false: not)
//   WEBHOOK_ALLOW_INSECURE_TARGETS=127.0.0.1 npm start          # or a service allowed to call http://127.0.0.1
//   ADMIN_PASSWORD=… npm run marketplace:mock                   # and this marketplace
'use strict';
const { createHmac, randomBytes, timingSafeEqual } = require('crypto');
const http = require('http');
const readline = require('readline');

const SERVICE_URL = (process.env.SERVICE_URL || 'http://localhost:3000').replace(/\/+$/, '');
const PORT = Number(process.env.MOCK_PORT ?? 4010);
const PRODUCT = process.env.MOCK_PRODUCT || 'Office 2024 Home & Business (Mac)';
const EVERY_S = Number(process.env.MOCK_CODES_EVERY_S || 15);
const PER_EVENT = Number(process.env.MOCK_CODES_PER_EVENT || 5);
const EXTERNAL_REF = process.env.MOCK_EXTERNAL_REF || 'REF-OFFICE-HB-MAC';

/** `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`: both directions sign the same way. */
function signature(secret, timestamp, body) {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

function verified(secret, headers, body) {
  const ts = headers['x-timestamp'];
  const given = Buffer.from(String(headers['x-signature'] || ''));
  if (!/^\d+$/.test(ts || '') || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const expected = Buffer.from(signature(secret, ts, body));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const log = (...args) => console.log(new Date().toISOString().slice(11, 19), ...args);

async function api(method, path, body, token) {
  const res = await fetch(`${SERVICE_URL}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : {};
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.message || text}`);
  return json;
}

/** Connects this marketplace through the admin API (or uses MARKETPLACE_ID and MARKETPLACE_SECRET). */
async function connect(baseUrl) {
  if (process.env.MARKETPLACE_ID && process.env.MARKETPLACE_SECRET) {
    return { id: process.env.MARKETPLACE_ID, secret: process.env.MARKETPLACE_SECRET };
  }
  const password = process.env.ADMIN_PASSWORD;
  if (!password) throw new Error('Set ADMIN_PASSWORD (or MARKETPLACE_ID and MARKETPLACE_SECRET of a connection)');
  const { accessToken } = await api('POST', '/api/admin/login', {
    username: process.env.ADMIN_USERNAME || 'admin',
    password,
  });
  const products = await api('GET', '/api/products', undefined, accessToken);
  const list = Array.isArray(products) ? products : products.items || products.products || [];
  const product = list.find((p) => p.name === PRODUCT);
  if (!product) throw new Error(`No product named ${PRODUCT} (MOCK_PRODUCT)`);
  for (const c of await api('GET', '/api/marketplaces', undefined, accessToken)) {
    if (c.baseUrl === baseUrl) await api('DELETE', `/api/marketplaces/${c.id}`, undefined, accessToken);
  }
  const created = await api(
    'POST',
    '/api/marketplaces',
    {
      name: 'Reference marketplace',
      baseUrl,
      products: [{ productId: product.id, externalRef: EXTERNAL_REF }],
      // Off for the demo, whose own printed codes of the product the marketplace never sold.
      checkAtRedeem: process.env.MOCK_CHECK_AT_REDEEM !== 'false',
      reportRedemptions: true,
      onUnreachable: 'accept',
      pullIntervalSeconds: 0,
    },
    accessToken,
  );
  log(`connected as marketplace ${created.id} for "${PRODUCT}" (${EXTERNAL_REF})`);
  return created;
}

async function main() {
  let baseUrl = `http://127.0.0.1:${PORT}`;
  const sold = new Map(); // code → 'valid' | 'redeemed' | 'refunded'
  const events = []; // what a pull is served
  const acked = new Set(); // Idempotency-Keys acknowledged
  let connection;

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (status, json) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (!connection || !verified(connection.secret, req.headers, body)) {
        return answer(401, { message: 'Invalid signature' });
      }
      const url = new URL(req.url, baseUrl);
      const json = body ? JSON.parse(body) : {};
      if (req.method === 'POST' && url.pathname === '/vouchers/check') {
        const status = sold.get(json.code) || 'unknown';
        log(`check ${json.code}: ${status}`);
        return answer(200, { status });
      }
      if (req.method === 'POST' && url.pathname === '/redemptions') {
        const key = req.headers['idempotency-key'];
        if (!acked.has(key)) log(`redemption ${json.redemptionId} of ${json.code} reported: acked`);
        acked.add(key);
        if (sold.get(json.code) === 'valid') sold.set(json.code, 'redeemed');
        return answer(200, { ok: true });
      }
      if (req.method === 'POST' && url.pathname === '/refunds') {
        log(`refund of redemption ${json.redemptionId} (${json.code}) reported: acked`);
        sold.set(json.code, 'refunded');
        return answer(200, { ok: true });
      }
      if (req.method === 'GET' && url.pathname === '/events') {
        const after = Number(url.searchParams.get('after') || 0);
        return answer(200, { events: events.slice(after), cursor: String(events.length) });
      }
      answer(404, { message: 'Not found' });
    });
  });
  await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}`;
  log(`reference marketplace on ${baseUrl}, service ${SERVICE_URL}`);
  connection = await connect(baseUrl);

  const push = async (event) => {
    events.push(event);
    const body = JSON.stringify(event);
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(`${SERVICE_URL}/api/marketplaces/${connection.id}/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-timestamp': String(ts),
        'x-signature': signature(connection.secret, ts, body),
      },
      body,
    });
    log(`${event.type} ${event.codes.join(' ')} → ${res.status} ${await res.text()}`);
  };
  const sell = async () => {
    const codes = Array.from({ length: PER_EVENT }, () => `MOCK-${randomBytes(4).toString('hex').toUpperCase()}`);
    for (const code of codes) sold.set(code, 'valid');
    await push({
      id: `evt_${randomBytes(8).toString('hex')}`,
      type: 'voucher.created',
      externalRef: EXTERNAL_REF,
      codes,
    });
  };
  await sell();
  setInterval(() => sell().catch((err) => log(`push failed: ${err.message}`)), EVERY_S * 1000);

  log('type "refund <CODE>" to refund a sold code');
  const input = readline.createInterface({ input: process.stdin });
  // Started by `npm run demo`: it ends with the demo, whose end closes this input.
  if (process.env.MOCK_EXIT_WITH_INPUT === 'true') input.on('close', () => process.exit(0));
  input.on('line', (line) => {
    const [command, code] = line.trim().split(/\s+/);
    if (command !== 'refund' || !code) return;
    sold.set(code.toUpperCase(), 'refunded');
    const event = {
      id: `evt_${randomBytes(8).toString('hex')}`,
      type: 'voucher.refunded',
      externalRef: EXTERNAL_REF,
      codes: [code.toUpperCase()],
    };
    push(event).catch((err) => log(`push failed: ${err.message}`));
  });
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
