/**
 * The redemption's floor on this stack: what `POST /api/redeem-voucher` costs with nothing but what it cannot do
 * without. Node's `http`, the body parsed as JSON, the same statement (REDEEM_SQL, named, on a `pg` pool of the API's
 * size and session options), the same success token and hashes, the same answer; like the API, no job queued (the
 * workers' relay queues the e-mail). No Express, no Nest (router, guards, pipe, filters), no validation, no logging, no
 * metrics, no security headers, no geo lookup, no events. `bench/api-cpu.ts` runs it beside the API
 * (BENCH_API_CPU_FLOOR=1): the API's CPU per redemption against this one's is what the framework and the product's
 * rules cost. Not a product: it skips every check the product makes.
 *
 *   PORT=… DATABASE_URL=… node -r ts-node/register bench/api-floor-server.ts
 */
import { createServer } from 'http';
import { Pool } from 'pg';
import { loadConfig } from '../backend/src/config/app-config';
import { API_SESSION_OPTIONS } from '../backend/src/database/data-source-options';
import { randomToken } from '../backend/src/common/utils/random-token';
import { successTokenHash } from '../backend/src/modules/redemption/redeem.statement';
import { REDEEM_SQL } from '../backend/src/modules/redemption/redemption.repository';

// The API's settings from the same environment: the pool's size, the token's lifetime.
const config = loadConfig();
const pool = new Pool({ connectionString: config.databaseUrl, max: config.dbPoolSize, options: API_SESSION_OPTIONS });

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.end('{"status":"ok"}'); // the benchmarks' readiness check
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => void answer());
  async function answer(): Promise<void> {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const token = randomToken(32);
      const { rows } = await pool.query({
        name: 'redeem-voucher',
        text: REDEEM_SQL,
        values: [
          body.voucherCode,
          body.firstName,
          body.lastName,
          body.email,
          body.phone || null,
          req.socket.remoteAddress ?? null,
          null,
          successTokenHash(token),
          config.successTokenTtlHours,
          null, // no Idempotency-Key, as the benchmarks send none
          false, // not held for review (the risk rules off)
          null,
        ],
      });
      if (!rows.length) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ success: true, productName: rows[0].name, successToken: token }));
    } catch {
      res.writeHead(500).end();
    }
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  // Whatever the pool still holds, out within 5 s.
  setTimeout(() => process.exit(0), 5000).unref();
  void pool.end().then(() => process.exit(0));
});
