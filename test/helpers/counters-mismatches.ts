/*
 * The counters suites' check (test/helpers/counters.ts): every counter of migration 1763820000000 against count(*),
 * and the lists of codes by state kept off the code's row (docs/architecture.md "A code's state") against the codes.
 */

/** Counters minus count(*), per figure: every row of the answer is a mismatch. One statement, one snapshot. */
export const MISMATCHES_SQL = `
WITH codes AS (
  SELECT product_id, count(*) FILTER (WHERE NOT is_redeemed AND voided_at IS NULL) AS available,
         count(*) FILTER (WHERE is_redeemed) AS redeemed, count(*) FILTER (WHERE voided_at IS NOT NULL) AS void
    FROM voucher_codes GROUP BY product_id),
reds AS (SELECT product_id, count(*) AS redemptions FROM redemptions GROUP BY product_id),
counted AS (
  SELECT p.id AS product_id, coalesce(c.available, 0) AS available, coalesce(c.redeemed, 0) AS redeemed,
         coalesce(c.void, 0) AS void, coalesce(r.redemptions, 0) AS redemptions
    FROM products p LEFT JOIN codes c ON c.product_id = p.id LEFT JOIN reds r ON r.product_id = p.id),
kept AS (
  SELECT product_id, sum(available) AS available, sum(redeemed) AS redeemed, sum(void) AS void,
         sum(redemptions) AS redemptions
    FROM product_counts GROUP BY product_id),
days_counted AS (
  SELECT (r.redeemed_at AT TIME ZONE z.time_zone)::date AS day, r.product_id, count(*) AS n
    FROM redemptions r, stats_settings z GROUP BY 1, 2),
days_kept AS (SELECT day, product_id, sum(redemptions) AS n FROM redemption_day_counts GROUP BY 1, 2),
keys_counted AS (
  SELECT product_id, count(*) AS total, count(*) FILTER (WHERE is_active) AS active,
         count(*) FILTER (WHERE current_activations = 0) AS available,
         count(*) FILTER (WHERE current_activations > 0 AND current_activations < max_activations) AS partially_used,
         count(*) FILTER (WHERE current_activations >= max_activations) AS fully_used,
         coalesce(sum(max_activations - current_activations) FILTER (WHERE is_active), 0) AS room
    FROM license_keys WHERE NOT is_manual GROUP BY product_id),
batch_codes AS (
  SELECT product_id, coalesce(batch_id, product_id) AS batch_id,
         count(*) FILTER (WHERE NOT is_redeemed AND voided_at IS NULL) AS available,
         count(*) FILTER (WHERE is_redeemed) AS redeemed, count(*) FILTER (WHERE voided_at IS NOT NULL) AS void
    FROM voucher_codes GROUP BY 1, 2),
batch_reds AS (
  SELECT r.product_id, coalesce(v.batch_id, r.product_id) AS batch_id, count(*) AS redemptions,
         count(*) FILTER (WHERE r.exported) AS exported
    FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id GROUP BY 1, 2),
batch_counted AS (
  SELECT coalesce(c.product_id, r.product_id) AS product_id, coalesce(c.batch_id, r.batch_id) AS batch_id,
         coalesce(c.available, 0) AS available, coalesce(c.redeemed, 0) AS redeemed, coalesce(c.void, 0) AS void,
         coalesce(r.redemptions, 0) AS redemptions, coalesce(r.exported, 0) AS exported
    FROM batch_codes c FULL JOIN batch_reds r ON r.product_id = c.product_id AND r.batch_id = c.batch_id),
batch_kept AS (
  SELECT product_id, batch_id, sum(available) AS available, sum(redeemed) AS redeemed, sum(void) AS void,
         sum(redemptions) AS redemptions, sum(exported) AS exported
    FROM product_counts GROUP BY 1, 2),
keys_kept AS (
  SELECT product_id, sum(total) AS total, sum(active) AS active, sum(available) AS available,
         sum(partially_used) AS partially_used, sum(fully_used) AS fully_used, sum(room) AS room
    FROM license_key_counts GROUP BY product_id),
available_codes_now AS (SELECT product_id, seq, id FROM voucher_codes WHERE NOT is_redeemed AND voided_at IS NULL),
redeemed_listed AS (
  SELECT voucher_code_id AS id, product_id FROM redemptions
  UNION ALL SELECT voucher_code_id, product_id FROM released_codes)
SELECT 'product' AS what, c.product_id::text AS key, row(c.available, c.redeemed, c.void, c.redemptions)::text AS counted,
       row(k.available, k.redeemed, k.void, k.redemptions)::text AS kept
  FROM counted c LEFT JOIN kept k ON k.product_id = c.product_id
 WHERE (c.available, c.redeemed, c.void, c.redemptions)
       IS DISTINCT FROM (coalesce(k.available, 0), coalesce(k.redeemed, 0), coalesce(k.void, 0), coalesce(k.redemptions, 0))
UNION ALL
SELECT 'batch', coalesce(c.product_id, k.product_id) || ' ' || coalesce(c.batch_id, k.batch_id),
       row(c.available, c.redeemed, c.void, c.redemptions, c.exported)::text,
       row(k.available, k.redeemed, k.void, k.redemptions, k.exported)::text
  FROM batch_counted c FULL JOIN batch_kept k ON k.product_id = c.product_id AND k.batch_id = c.batch_id
 WHERE coalesce(c.product_id, k.product_id) IN (SELECT id FROM products)
   AND (coalesce(c.available, 0), coalesce(c.redeemed, 0), coalesce(c.void, 0), coalesce(c.redemptions, 0), coalesce(c.exported, 0))
       IS DISTINCT FROM (coalesce(k.available, 0), coalesce(k.redeemed, 0), coalesce(k.void, 0), coalesce(k.redemptions, 0),
                         coalesce(k.exported, 0))
UNION ALL
SELECT 'day', coalesce(c.day, k.day) || ' ' || coalesce(c.product_id, k.product_id), c.n::text, k.n::text
  FROM days_counted c FULL JOIN days_kept k ON k.day = c.day AND k.product_id = c.product_id
 WHERE coalesce(c.n, 0) <> coalesce(k.n, 0)
UNION ALL
SELECT 'keys', coalesce(c.product_id, k.product_id)::text,
       row(c.total, c.active, c.available, c.partially_used, c.fully_used, c.room)::text,
       row(k.total, k.active, k.available, k.partially_used, k.fully_used, k.room)::text
  FROM keys_counted c FULL JOIN keys_kept k ON k.product_id = c.product_id
 WHERE (coalesce(c.total, 0), coalesce(c.active, 0), coalesce(c.available, 0), coalesce(c.partially_used, 0),
        coalesce(c.fully_used, 0), coalesce(c.room, 0))
       IS DISTINCT FROM (coalesce(k.total, 0), coalesce(k.active, 0), coalesce(k.available, 0),
                         coalesce(k.partially_used, 0), coalesce(k.fully_used, 0), coalesce(k.room, 0))
UNION ALL
SELECT 'available list', coalesce(c.id, a.voucher_code_id)::text, row(c.product_id, c.seq)::text, row(a.product_id, a.seq)::text
  FROM available_codes_now c FULL JOIN available_codes a ON a.voucher_code_id = c.id
 WHERE (c.product_id, c.seq) IS DISTINCT FROM (a.product_id, a.seq)
UNION ALL
SELECT 'redeemed list', coalesce(v.id, l.id)::text, row(v.product_id, v.is_redeemed)::text, l.product_id::text
  FROM (SELECT id, product_id, is_redeemed FROM voucher_codes WHERE is_redeemed) v FULL JOIN redeemed_listed l ON l.id = v.id
 WHERE v.id IS NULL OR l.id IS NULL OR v.product_id <> l.product_id`;
