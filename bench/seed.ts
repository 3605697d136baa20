import { createHash } from 'crypto';
import { Client } from 'pg';
import { insertSealedKeys } from './lib';
import { recountCounters } from './recount';

export interface Seeded {
  /** Licence-managed product: its redemptions each have a pool key assigned. */
  windows: string;
  /** Not licence-managed (a Mac product). */
  mac: string;
  /** A code that exists (redeemed), for an exact search. */
  someCode: string;
  /** A redemption held for review (the middle one of the queue), for its evidence; none in a seed made before them. */
  heldId?: string;
}

const FIRST = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Eva',
  'Felix',
  'Greta',
  'Hugo',
  'Ida',
  'Jonas',
  'Klara',
  'Lukas',
  'Mia',
  'Noah',
  'Olga',
  'Paul',
  'Rosa',
  'Simon',
  'Tina',
  'Uwe',
];
const LAST = [
  'Smith',
  'Meyer',
  'Schulz',
  'Wagner',
  'Becker',
  'Hoffmann',
  'Koch',
  'Richter',
  'Klein',
  'Wolf',
  'Neumann',
  'Braun',
  'Zimmermann',
  'Hartmann',
  'Lange',
  'Krause',
  'Werner',
  'Lehmann',
  'Walter',
  'Peters',
  'Fischer',
  'Weber',
  'Schmitt',
  'Kaiser',
  'Fuchs',
];
/** Ordinary last names are LAST × these endings: 4,000 full names, each about 0.025% of the customers. */
const ENDINGS = ['', 'er', 'mann', 'son', 'berg', 'feld', 'hof', 'stein'];

/**
 * The named adversarial shapes every seed has, in the same proportions at every size (docs/benchmarks.md "Method"):
 * the searches and lists are measured against them, not only against friendly data.
 */
export const SHAPES = {
  /** One full name shared by 0.2% of the customers (1 in 500 draws): about 2,000 at a million redemptions, 20,000 at ten million. */
  sharedName: { first: 'Maria', last: 'Garcia', every: 500 },
  /** Every customer's e-mail is in this domain (`user<n>@mail<n % 40>.shared.test`): a search for it matches every row. */
  sharedDomain: 'shared.test',
  /**
   * 10% of the codes (every tenth) start with this prefix (`PROMO24-<n>-…`, `PROMO24-U<n>-…` unredeemed); the others
   * with `RC<n>-` (`UC<n>-`). The row number keeps them unique: eight random hex digits alone collide from about
   * 100,000 codes on (a million shared ones at ten million redemptions).
   */
  sharedCodePrefix: { prefix: 'PROMO24-', every: 10 },
  /**
   * 1 in 500 of the Mac product's redemptions (0.1% of all: about 1,000 at a million) held for review by the address
   * rule, still waiting (docs/product.md §25.2): the review queue and its evidence are measured against them. Every
   * redemption comes from one of `addresses` addresses, so a held case's address has others within its day.
   */
  held: { every: 500, addresses: 250 },
} as const;

/** The codes of one upload in the seed: each product's redeemed codes are stored in batches of this many. */
export const UPLOAD_BATCH = 50_000;

/** The PRNG's fixed seed: `hashint8extended(n, SEED)` is a counter-based generator, the same on every run and plan. */
export const SEED = 20_261_125;

/**
 * `n` redemptions, as redemptions leave them: a redeemed code each, one customer each (names and statuses drawn from
 * the seeded PRNG, the SHAPES above), alternating between a licence-managed product (with its assigned pool key) and a
 * Mac product, spread over the 400 days before today (UTC midnight), about 90% sent / 6% pending / 4% failed,
 * `exportedShare` already exported. Plus `unredeemed` unredeemed codes of the Windows product. Then VACUUM ANALYZE.
 * The same data on every run (row ids, sealed-key nonces and times relative to today aside): it prints a checksum of
 * the content (`seedChecksum`), which two seeds of the same size must agree on (`npm run bench -- seed-check`).
 */
export async function seedRedemptions(
  url: string,
  opts: { redemptions: number; exportedShare: number; unredeemed: number },
): Promise<Seeded> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    // Bulk loading into tables with their secondary indexes (three of them trigram GINs) took about 13 min per
    // million; the indexes that back no constraint and are not unique are dropped here and built once at the end
    // instead (uq_customers_email is a unique index without a constraint: migration 1763843000000).
    const { rows: indexes } = await pg.query<{ indexname: string; indexdef: string }>(
      `SELECT i.indexname, i.indexdef FROM pg_indexes i
        WHERE i.schemaname = 'public' AND i.tablename = ANY($1) AND i.indexdef NOT LIKE 'CREATE UNIQUE %'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
      [['voucher_codes', 'customers', 'redemptions', 'license_keys', 'license_assignments']],
    );
    for (const { indexname } of indexes) await pg.query(`DROP INDEX ${indexname}`);
    const {
      rows: [windows],
    } = await pg.query(
      `INSERT INTO products (name, is_license_managed, email_subject, email_template)
       VALUES ('Bench Office 2024 (Windows)', true, 'Key', '<p>{{license_key}}</p>') RETURNING id`,
    );
    const {
      rows: [mac],
    } = await pg.query(
      `INSERT INTO products (name, is_license_managed, email_subject, email_template, download_link)
       VALUES ('Bench Office 2024 (Mac)', false, 'Mac', '<p>x</p>', 'https://dl.example.com/mac') RETURNING id`,
    );
    const n = opts.redemptions;
    const { sharedName, sharedDomain, sharedCodePrefix } = SHAPES;
    // r: the row's draw from the seeded PRNG; its bits pick the name, the e-mail status and the export.
    await pg.query(
      `CREATE TEMP TABLE s AS
       SELECT g AS n, r,
              CASE WHEN g % 2 = 0 THEN $1::uuid ELSE $2::uuid END AS product_id,
              CASE WHEN g % $6 = 0 THEN $7 ELSE 'RC' END || g || '-' || upper(substr(md5($4::bigint || ':' || g), 1, 8)) AS code,
              date_trunc('day', now()) - make_interval(secs => (g::float8 / $3) * 400 * 86400) AS at,
              'user' || g || '@mail' || (g % 40) || '.' || $5 AS email,
              CASE WHEN r % 50 < 3 THEN 'pending' WHEN r % 50 < 5 THEN 'failed' ELSE 'sent' END AS status,
              (r >> 8) % 100 < $8 AS exported,
              g % 2 = 1 AND (r >> 44) % $9 = 0 AS held,
              '10.20.0.' || (1 + (r >> 48) % $10) AS ip
         FROM (SELECT g, hashint8extended(g, $4::bigint) & 9223372036854775807 AS r FROM generate_series(1, $3::int) g) x`,
      [
        windows.id,
        mac.id,
        n,
        SEED,
        sharedDomain,
        sharedCodePrefix.every,
        sharedCodePrefix.prefix,
        Math.round(opts.exportedShare * 100),
        SHAPES.held.every,
        SHAPES.held.addresses,
      ],
    );
    // Codes enter the table as uploads put them there, a product's batch at a time (UPLOAD_BATCH codes, the products
    // taking turns, oldest first), and a redemption updates its code in place (heap-only), so a product's codes share
    // pages; the redemptions below interleave the products row by row, as customers do.
    await pg.query(
      `INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at, created_at)
       SELECT code, product_id, true, at, at - interval '30 days' FROM s ORDER BY (n - 1) / $1 DESC, n % 2, n DESC`,
      [2 * UPLOAD_BATCH],
    );
    await pg.query(
      `INSERT INTO customers (first_name, last_name, email, phone, country)
       SELECT CASE WHEN (r >> 16) % $3 = 0 THEN $4 ELSE ($1::text[])[1 + (r >> 24) % ${FIRST.length}] END,
              CASE WHEN (r >> 16) % $3 = 0 THEN $5
                   ELSE ($2::text[])[1 + (r >> 32) % ${LAST.length}] || ($6::text[])[1 + (r >> 40) % ${ENDINGS.length}] END,
              email, '+49 30 ' || n, 'DE'
         FROM s ORDER BY n DESC`,
      [FIRST, LAST, sharedName.every, sharedName.first, sharedName.last, ENDINGS],
    );
    await pg.query(
      // A held redemption's order e-mail waits for the decision (pending), its rule's finding as the API stores it.
      `INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, redeemed_at, exported, exported_at,
                                first_name, last_name, phone, country, ip_address, held_at, held_rules)
       SELECT v.id, c.id, s.product_id, CASE WHEN s.held THEN 'pending' ELSE s.status END, s.at, s.exported,
              CASE WHEN s.exported THEN s.at + interval '1 day' END, c.first_name, c.last_name, c.phone, c.country, s.ip,
              CASE WHEN s.held THEN s.at END,
              CASE WHEN s.held THEN jsonb_build_array(jsonb_build_object('rule', 'addressPerHour', 'action', 'review',
                'evidence', jsonb_build_object('addressGroup', s.ip, 'redemptions1h', 6))) END
         FROM s JOIN voucher_codes v ON v.code = s.code JOIN customers c ON c.email = s.email
        ORDER BY s.n DESC`,
    );
    // The pool keys sealed as the API writes them (clear rows would be sealed by the API's start-up step, 500 per
    // transaction, for minutes at ten million), one per Windows redemption, assigned oldest key to oldest redemption.
    const {
      rows: [{ keys }],
    } = await pg.query(`SELECT count(*)::int AS keys FROM redemptions WHERE product_id = $1`, [windows.id]);
    await insertSealedKeys(pg, windows.id, keys, { activations: 1 });
    await pg.query(
      `INSERT INTO license_assignments (license_key_id, redemption_id, assigned_at)
       SELECT k.id, r.id, r.redeemed_at
         FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM license_keys WHERE product_id = $1) k
         JOIN (SELECT id, redeemed_at, row_number() OVER (ORDER BY redeemed_at, id) AS n FROM redemptions WHERE product_id = $1) r
           ON r.n = k.n`,
      [windows.id],
    );
    if (opts.unredeemed > 0) {
      await pg.query(
        `INSERT INTO voucher_codes (code, product_id, created_at)
         SELECT CASE WHEN g % $3 = 0 THEN $4 || 'U' ELSE 'UC' END || g || '-' || upper(substr(md5('u' || g), 1, 8)), $1,
                date_trunc('day', now()) - make_interval(secs => g)
           FROM generate_series(1, $2::int) g ORDER BY g DESC`,
        [windows.id, opts.unredeemed, SHAPES.sharedCodePrefix.every, SHAPES.sharedCodePrefix.prefix],
      );
    }
    await recountCounters(pg, [windows.id, mac.id]);
    await pg.query(`SET maintenance_work_mem = '256MB'`);
    for (const { indexdef } of indexes) await pg.query(indexdef);
    await pg.query('VACUUM ANALYZE');
    // A Windows code in the default (not exported) view, for the exact-code searches (the redemption list's and the
    // product's codes').
    const {
      rows: [some],
    } = await pg.query(
      `SELECT code FROM s WHERE n >= $1 AND product_id = $2 AND NOT exported AND code LIKE 'RC%' ORDER BY n LIMIT 1`,
      [Math.floor(n / 3), windows.id],
    );
    console.log(`seed checksum (${n} redemptions, seed ${SEED}): ${await seedChecksum(pg)}`);
    return { windows: windows.id, mac: mac.id, someCode: some.code, heldId: await middleHeld(pg) };
  } finally {
    await pg.end();
  }
}

/**
 * A digest of what the seed wrote, without what differs by design (generated ids, the sealed keys' random nonces):
 * codes with their product and state, customers, redemptions with their times relative to the newest one, the
 * assigned keys' hashes. Order-independent sums of row hashes, so it costs one pass whatever the size.
 */
export async function seedChecksum(pg: Client): Promise<string> {
  const { rows } = await pg.query(`
    SELECT (SELECT count(*) || ':' || coalesce(sum(hashtextextended(concat_ws('|', v.code, p.name, v.is_redeemed, v.voided_at IS NULL), 0)::numeric), 0)
              FROM voucher_codes v JOIN products p ON p.id = v.product_id) AS codes,
           (SELECT count(*) || ':' || coalesce(sum(hashtextextended(concat_ws('|', c.first_name, c.last_name, c.email, c.phone, c.country), 0)::numeric), 0)
              FROM customers c) AS customers,
           (SELECT count(*) || ':' || coalesce(sum(hashtextextended(concat_ws('|', v.code, c.email, r.email_status, r.exported,
                     round(extract(epoch FROM (SELECT max(redeemed_at) FROM redemptions) - r.redeemed_at) * 1000), encode(k.key_hash, 'hex'),
                     r.ip_address, r.held_at IS NOT NULL, r.held_rules), 0)::numeric), 0)
              FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id JOIN customers c ON c.id = r.customer_id
              LEFT JOIN license_assignments a ON a.redemption_id = r.id LEFT JOIN license_keys k ON k.id = a.license_key_id) AS redemptions`);
  const { codes, customers, redemptions } = rows[0];
  return createHash('sha256').update(`${codes}/${customers}/${redemptions}`).digest('hex').slice(0, 16);
}

/** The middle case of the review queue (oldest first), by `idx_redemptions_held`. */
async function middleHeld(pg: Client): Promise<string | undefined> {
  const { rows } = await pg.query(
    `SELECT id FROM redemptions WHERE held_at IS NOT NULL ORDER BY held_at, id
      OFFSET (SELECT count(*) / 2 FROM redemptions WHERE held_at IS NOT NULL) LIMIT 1`,
  );
  return rows[0]?.id;
}

/** The products and a code of a database `seedRedemptions` filled earlier; undefined when it was not seeded. */
export async function findSeeded(url: string): Promise<Seeded | undefined> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const { rows } = await pg.query(`SELECT id, name FROM products WHERE name LIKE 'Bench Office 2024%'`);
    if (rows.length === 0) return undefined;
    const windows = rows.find((r) => r.name.includes('Windows')).id;
    const { rows: some } = await pg.query(
      `SELECT v.code FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE NOT r.exported AND r.product_id = $1 AND v.code LIKE 'RC3333%' ORDER BY v.code LIMIT 1`,
      [windows],
    );
    return {
      windows,
      mac: rows.find((r) => r.name.includes('Mac')).id,
      someCode: some[0].code,
      heldId: await middleHeld(pg),
    };
  } finally {
    await pg.end();
  }
}
