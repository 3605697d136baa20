/**
 * "No redemption and no e-mail lost when Redis, SMTP or a worker fails." The API runs with
 * WORKERS_IN_API=false next to two `main.js --worker` processes, on a private redis-server (no persistence:
 * a restart loses every queued job) and an in-script SMTP server. While redemptions are fired, one worker is
 * killed (SIGKILL), Redis is stopped for a few seconds and started again (empty), and SMTP refuses every
 * message for a few seconds. Then it waits until every e-mail is out and checks: every accepted redemption
 * is stored, every stored redemption's e-mail arrived exactly once.
 *
 *   npm run bench -- resilience   (BENCH_RESILIENCE_REDEMPTIONS to change the count)
 */
import { startRedisServer } from '../test/helpers/redis';
import { machine, startApi, withMigratedDatabase, writeResult } from './lib';
import { listAvailableCodes } from './recount';
import { startSmtp } from './smtp';

const REDEMPTIONS = Number(process.env.BENCH_RESILIENCE_REDEMPTIONS ?? 300);
const CONCURRENCY = 4;
const WAIT_LIMIT_MS = 180_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function main(): Promise<void> {
  await withMigratedDatabase(async (url, pg) => {
    const {
      rows: [product],
    } = await pg.query(
      `INSERT INTO products (name, is_license_managed, email_subject, email_template, product_key, download_link)
       VALUES ('Resilience Suite', false, 'Your order {{voucher_code}}', '<p>{{voucher_code}} {{license_key}}</p>', 'KEY-1', 'https://dl.example.com/x')
       RETURNING id`,
    );
    await pg.query(
      `INSERT INTO voucher_codes (code, product_id) SELECT 'RES-' || g, $1 FROM generate_series(1, $2::int) g`,
      [product.id, REDEMPTIONS],
    );
    // Listed as available, as an upload lists its codes (docs/architecture.md "A code's state").
    await listAvailableCodes(pg, [product.id]);

    const redis = await startRedisServer();
    const smtp = await startSmtp();
    const env = {
      DATABASE_URL: url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `bench-res-${Date.now()}`,
      WORKERS_IN_API: 'false',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_ATTEMPTS: '8',
      MAIL_BACKOFF_MS: '1000',
      MAIL_SWEEP_INTERVAL_MS: '2000',
      MAIL_SWEEP_AFTER_MS: '5000',
      MAIL_CLAIM_SECONDS: '10',
    };
    const api = await startApi(env);
    const workers = [await startApi(env, { args: ['--worker'] }), await startApi(env, { args: ['--worker'] })];
    const events: string[] = [];
    const t0 = Date.now();
    const note = (what: string) => {
      const line = `${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`;
      events.push(line);
      console.log(line);
    };
    const accepted: string[] = [];
    const refused: string[] = [];
    let statusCounts: Record<string, number>;
    try {
      await sleep(3000); // workers connect
      // The faults, on a timeline, while the redemptions run.
      const faults = (async () => {
        await sleep(2000);
        workers[0].child.kill('SIGKILL');
        note('worker 1 killed (SIGKILL)');
        await sleep(3000);
        await redis.stop();
        note('Redis stopped');
        await sleep(5000);
        await redis.start();
        note('Redis started again (empty: no persistence)');
        await sleep(3000);
        smtp.refusing = true;
        note('SMTP refuses (451)');
        await sleep(5000);
        smtp.refusing = false;
        note('SMTP accepts again');
      })();
      let next = 0;
      const fire = async () => {
        while (next < REDEMPTIONS) {
          const n = ++next;
          const email = `res${n}@bench.test`;
          try {
            const res = await fetch(`${api.url}/api/redeem-voucher`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                voucherCode: `RES-${n}`,
                firstName: 'Res',
                lastName: 'Client',
                email,
                phone: '+1 302 555 0100',
                acceptPrivacyPolicy: true,
                submissionTime: String(Date.now() - 5000),
                website: '',
                company_website: '',
              }),
            });
            const body = await res.text();
            if (res.status === 201) accepted.push(email);
            else {
              refused.push(email);
              if (refused.length === 1) note(`first refusal: ${res.status} ${body.slice(0, 200)}`);
            }
          } catch (err) {
            refused.push(email);
            if (refused.length === 1) note(`first refusal: ${(err as Error).message}`);
          }
          // Spread the redemptions over the fault timeline (~20 s).
          await sleep((20_000 * CONCURRENCY) / REDEMPTIONS);
        }
      };
      await Promise.all([faults, ...Array.from({ length: CONCURRENCY }, fire)]);
      note(`${accepted.length} redemptions accepted, ${refused.length} refused`);

      // Wait for every e-mail (the sweep finds jobs lost with Redis or the killed worker).
      const waitStart = Date.now();
      for (;;) {
        const { rows } = await pg.query(`SELECT email_status, count(*)::int AS n FROM redemptions GROUP BY 1`);
        statusCounts = Object.fromEntries(rows.map((r) => [r.email_status, r.n]));
        const stored = rows.reduce((a, r) => a + r.n, 0);
        if (stored > 0 && (statusCounts.sent ?? 0) === stored && smtp.received.size >= stored) break;
        if (Date.now() - waitStart > WAIT_LIMIT_MS || !accepted.length) break;
        await sleep(500);
      }
      const waitedMs = Date.now() - waitStart;
      await sleep(3000); // a late duplicate would show up here
      note(
        `stopped waiting ${(waitedMs / 1000).toFixed(1)} s later (every e-mail sent, or the ${WAIT_LIMIT_MS / 1000} s limit)`,
      );
    } finally {
      await Promise.all([api.stop(), ...workers.map((w) => w.stop())]);
      await redis.stop();
      await smtp.close();
    }

    const { rows } = await pg.query(
      `SELECT lower(c.email) AS email, r.email_status FROM redemptions r JOIN customers c ON c.id = r.customer_id`,
    );
    const storedEmails = new Set(rows.map((r) => r.email as string));
    const lostRedemptions = accepted.filter((e) => !storedEmails.has(e));
    const missingMail = [...storedEmails].filter((e) => !smtp.received.has(e));
    const duplicates = [...smtp.received].filter(([, n]) => n > 1);
    const ok = !lostRedemptions.length && !missingMail.length && !duplicates.length && refused.length === 0;

    const md = `## Resilience: Redis, SMTP and a worker failing

${new Date().toISOString().slice(0, 10)}, ${machine()}. API with \`WORKERS_IN_API=false\`, two \`node dist/backend/src/main.js --worker\` processes, a private redis-server without persistence, an in-script SMTP server; ${REDEMPTIONS} redemptions (${CONCURRENCY} at a time, spread over ~20 s); \`MAIL_ATTEMPTS=8\`, \`MAIL_BACKOFF_MS=1000\`, \`MAIL_SWEEP_INTERVAL_MS=2000\`, \`MAIL_SWEEP_AFTER_MS=5000\`, \`MAIL_CLAIM_SECONDS=10\`.

Timeline:

${events.map((e) => `- ${e}`).join('\n')}

| check | result |
|---|---|
| redemptions accepted (201) / refused | ${accepted.length} / ${refused.length} |
| accepted but not stored | ${lostRedemptions.length} |
| stored redemptions by e-mail status | ${Object.entries(statusCounts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |
| stored redemptions whose e-mail never arrived | ${missingMail.length}${missingMail.length ? ` (e.g. ${missingMail.slice(0, 3).join(', ')})` : ''} |
| recipients who got more than one e-mail | ${duplicates.length}${
      duplicates.length
        ? ` (e.g. ${duplicates
            .slice(0, 3)
            .map(([e, n]) => `${e} ×${n}`)
            .join(', ')})`
        : ''
    } |

**${ok ? 'Nothing lost, nothing duplicated.' : 'LOSS OR DUPLICATE FOUND.'}**`;
    console.log(md);
    writeResult('resilience', md);
    if (!ok) process.exitCode = 1;
  });
}
