import { Client } from 'pg';
import { insertSealedKeys } from './lib';

export interface Seeded {
  /** Licence-managed product: its redemptions each have a pool key assigned. */
  windows: string;
  /** Not licence-managed (a Mac product). */
  mac: string;
  /** A code that exists (redeemed), for an exact search. */
  someCode: string;
}

const FIRST = ['Anna', 'Ben', 'Clara', 'David', 'Eva', 'Felix', 'Greta', 'Hugo', 'Ida', 'Jonas', 'Klara', 'Lukas', 'Mia', 'Noah', 'Olga', 'Paul', 'Rosa', 'Simon', 'Tina', 'Uwe'];
const LAST = ['Smith', 'Meyer', 'Schulz', 'Wagner', 'Becker', 'Hoffmann', 'Koch', 'Richter', 'Klein', 'Wolf', 'Neumann', 'Braun', 'Zimmermann', 'Hartmann', 'Lange', 'Krause', 'Werner', 'Lehmann', 'Walter', 'Peters', 'Fischer', 'Weber', 'Schmitt', 'Kaiser', 'Fuchs'];

/**
 * `n` redemptions, as redemptions leave them: a redeemed code each, one customer each (400 name pairs,
 * e-mails spread over 40 domains), alternating between a licence-managed product (with its assigned pool
 * key) and a Mac product, spread over the last 400 days, 90% sent / 6% pending / 4% failed, `exportedShare`
 * already exported. Plus `unredeemed` unredeemed codes of the Windows product. Then VACUUM ANALYZE.
 */
export async function seedRedemptions(
  url: string,
  opts: { redemptions: number; exportedShare: number; unredeemed: number },
): Promise<Seeded> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    // Bulk loading into tables with their secondary indexes (three of them trigram GINs) took about 13 min per
    // million; the indexes that back no constraint are dropped here and built once at the end instead.
    const { rows: indexes } = await pg.query<{ indexname: string; indexdef: string }>(
      `SELECT i.indexname, i.indexdef FROM pg_indexes i
        WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
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
    await pg.query(`CREATE TEMP TABLE s AS
      SELECT g AS n,
             CASE WHEN g % 2 = 0 THEN $1::uuid ELSE $2::uuid END AS product_id,
             'RC' || g || '-' || upper(substr(md5(g::text), 1, 8)) AS code,
             now() - make_interval(secs => (g::float8 / $3) * 400 * 86400) AS at
        FROM generate_series(1, $3::int) g`,
      [windows.id, mac.id, n]);
    await pg.query(
      `INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at, created_at)
       SELECT code, product_id, true, at, at - interval '30 days' FROM s ORDER BY n DESC`,
    );
    await pg.query(
      `INSERT INTO customers (first_name, last_name, email, phone, country)
       SELECT ($1::text[])[1 + n % ${FIRST.length}], ($2::text[])[1 + (n / ${FIRST.length}) % ${LAST.length}],
              'user' || n || '@mail' || (n % 40) || '.test', '+49 30 ' || n, 'DE'
         FROM s ORDER BY n DESC`,
      [FIRST, LAST],
    );
    await pg.query(
      `INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, redeemed_at, exported, exported_at,
                                first_name, last_name, phone, country)
       SELECT v.id, c.id, s.product_id,
              CASE WHEN (s.n / 3) % 50 < 3 THEN 'pending' WHEN (s.n / 3) % 50 < 5 THEN 'failed' ELSE 'sent' END,
              s.at, (s.n / 7) % 100 < $1, CASE WHEN (s.n / 7) % 100 < $1 THEN s.at + interval '1 day' END,
              c.first_name, c.last_name, c.phone, c.country
         FROM s JOIN voucher_codes v ON v.code = s.code JOIN customers c ON c.email = 'user' || s.n || '@mail' || (s.n % 40) || '.test'
        ORDER BY s.n DESC`,
      [Math.round(opts.exportedShare * 100)],
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
         SELECT 'UC' || g || '-' || upper(substr(md5('u' || g), 1, 8)), $1, now() - make_interval(secs => g)
           FROM generate_series(1, $2::int) g ORDER BY g DESC`,
        [windows.id, opts.unredeemed],
      );
    }
    await pg.query(`SET maintenance_work_mem = '256MB'`);
    for (const { indexdef } of indexes) await pg.query(indexdef);
    await pg.query('VACUUM ANALYZE');
    // A code in the default (not exported) view, for the exact-code search.
    const {
      rows: [some],
    } = await pg.query(`SELECT code FROM s WHERE n >= $1 AND (n / 7) % 100 >= $2 ORDER BY n LIMIT 1`, [
      Math.floor(n / 3),
      Math.round(opts.exportedShare * 100),
    ]);
    return { windows: windows.id, mac: mac.id, someCode: some.code };
  } finally {
    await pg.end();
  }
}

/** The products and a code of a database `seedRedemptions` filled earlier; undefined when it was not seeded. */
export async function findSeeded(url: string): Promise<Seeded | undefined> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const { rows } = await pg.query(`SELECT id, name FROM products WHERE name LIKE 'Bench Office 2024%'`);
    if (rows.length === 0) return undefined;
    const { rows: some } = await pg.query(
      `SELECT v.code FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE NOT r.exported AND v.code LIKE 'RC3333%' ORDER BY v.code LIMIT 1`,
    );
    return {
      windows: rows.find((r) => r.name.includes('Windows')).id,
      mac: rows.find((r) => r.name.includes('Mac')).id,
      someCode: some[0].code,
    };
  } finally {
    await pg.end();
  }
}
