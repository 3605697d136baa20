import { createHash } from 'crypto';
import { COUNTER_SHARD, localDaySql } from '../../common/utils/counters-sql';
import { unlistAvailableCte } from '../voucher/code-status.sql';

/*
 * The whole redemption is one statement, hence one implicit transaction and one round trip:
 * claim the code (a conditional UPDATE: of racing requests exactly one sees is_redeemed=false; heap-only, as no index
 * reads what it changes, and the code leaves the list of available codes: docs/architecture.md "A code's state"),
 * upsert the customer, take a pool key (SKIP LOCKED, from the product's pool start: `license_pool_starts`,
 * docs/architecture.md "The pool's start"), insert the redemption, assignment and token.
 * Nothing is written unless every part succeeds; the unique (customer, product) constraint turns a
 * second licence for the same e-mail into an error that rolls the code back to unredeemed.
 * It writes voucher_codes and license_keys/license_assignments too: splitting it by table owner would
 * cost the one-round-trip atomicity the service is built on (docs/architecture.md, "One statement").
 * It keeps its own counters, as every writer of the counted tables does (issue 26: no counter triggers since
 * migration 1763839000000; common/utils/counters-sql.ts): `pc`, `dc` and `kc` add the code, the redemption, its day
 * and the key's change of state on the connection's shard (`n`), in that order (each reads the one before: the
 * order every writer takes counter rows in). Plain upserts in the prepared statement cost about a third of what the
 * trigger functions did (0.33 → 0.1 ms), and without transition tables nothing keeps the statement's changed rows.
 * The redemption keeps its own copy of what was given with it (name, phone, IP, country: docs/product.md §11.6);
 * the customer row is one per e-mail and an existing one is never rewritten (`SET email = EXCLUDED.email`, the same
 * value, only so that RETURNING yields its id). `$10` is the SHA-256 of the redeem page's Idempotency-Key, or NULL.
 * `pc`'s row is the code's batch's (migration 1763823000000: a code without `batch_id` is its product's "before
 * batches" batch, whose id is the product's), so the one upsert keeps the product's and the upload batch's figures.
 * `$11` true holds the redemption for review (docs/product.md §25.2): no key is taken, `held_at` is set and `$12`
 * (the rules it matched) kept; it does not wait for a key (`awaiting_license` false), so nothing but a person hands it
 * one.
 */
export const REDEEM_SQL = `
WITH v AS (
  UPDATE voucher_codes vc SET is_redeemed = true, redeemed_at = now()
    FROM products p
   WHERE vc.code = $1 AND NOT vc.is_redeemed AND vc.voided_at IS NULL AND p.id = vc.product_id AND p.status = 'active'
  RETURNING vc.id, vc.product_id, vc.seq, coalesce(vc.batch_id, vc.product_id) AS batch_id, p.name, p.is_license_managed
)${unlistAvailableCte('v')}, s AS (
  -- The product's pool start (no row: the beginning). A scalar read, not a join in \`v\`: the planner's row estimate
  -- of every CTE after \`v\` depends on \`v\`'s being one row (a join with this small, rarely analysed table once
  -- estimated 30, 27,000 rows further down, and a cost that had PostgreSQL JIT-compile every execution).
  SELECT key_created_at, key_id FROM license_pool_starts WHERE product_id = (SELECT product_id FROM v WHERE is_license_managed)
), c AS (
  INSERT INTO customers (first_name, last_name, email, phone, ip_address, country)
  SELECT $2, $3, $4, $5, $6, $7 FROM v
  ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
  RETURNING id
), k AS (
  UPDATE license_keys SET current_activations = current_activations + 1, updated_at = now()
   WHERE NOT $11::boolean AND id = (
     -- A scalar product id lets the planner walk idx_license_keys_pool in order and stop at the first free key;
     -- the scan starts at the product's pool start, past the dead entries of the keys taken before it. None found
     -- (the pool ran dry, the rest is held, a key has room behind the start): RedemptionService retries through
     -- PoolAssignmentService, whose scan starts at the pool's beginning and waits for held keys.
     SELECT lk.id FROM license_keys lk
      WHERE lk.product_id = (SELECT product_id FROM v WHERE is_license_managed)
        AND (lk.created_at, lk.id) >= (coalesce((SELECT key_created_at FROM s), '-infinity'),
                                       coalesce((SELECT key_id FROM s), '00000000-0000-0000-0000-000000000000'))
        AND lk.is_active AND lk.current_activations < lk.max_activations
      ORDER BY lk.created_at, lk.id LIMIT 1
      FOR UPDATE SKIP LOCKED)
  RETURNING id, current_activations, max_activations, is_manual
), r AS (
  INSERT INTO redemptions (voucher_code_id, customer_id, product_id, awaiting_license,
                           first_name, last_name, phone, ip_address, country, idempotency_key_hash, held_at, held_rules)
  SELECT v.id, c.id, v.product_id, NOT $11::boolean AND v.is_license_managed AND NOT EXISTS (SELECT 1 FROM k),
         $2, $3, $5, $6, $7, $10::bytea, CASE WHEN $11::boolean THEN now() END, $12::jsonb FROM v, c
  RETURNING id, awaiting_license, held_at IS NOT NULL AS held
), a AS (
  INSERT INTO license_assignments (license_key_id, redemption_id) SELECT k.id, r.id FROM k, r
), t AS (
  INSERT INTO success_tokens (token_hash, redemption_id, customer_email, product_name, expires_at)
  SELECT $8, r.id, $4, v.name, now() + make_interval(hours => $9) FROM v, r
), n AS (
  SELECT ${COUNTER_SHARD} AS shard, ${localDaySql('now()')} AS day FROM r
), pc AS (
  INSERT INTO product_counts AS c (product_id, batch_id, shard, available, redeemed, redemptions)
  SELECT v.product_id, v.batch_id, n.shard, -1, 1, 1 FROM v, n
  ON CONFLICT (product_id, batch_id, shard) DO UPDATE
     SET available = c.available - 1, redeemed = c.redeemed + 1, redemptions = c.redemptions + 1
  RETURNING c.product_id
), dc AS (
  INSERT INTO redemption_day_counts AS c (day, product_id, shard, redemptions)
  SELECT n.day, pc.product_id, n.shard, 1 FROM pc, n
  ON CONFLICT (day, product_id, shard) DO UPDATE SET redemptions = c.redemptions + 1
  RETURNING c.product_id
), kc AS (
  INSERT INTO license_key_counts AS c (product_id, shard, room, available, partially_used, fully_used)
  SELECT dc.product_id, n.shard, -1, -(k.current_activations = 1)::int,
         (k.current_activations < k.max_activations)::int - (k.current_activations > 1 AND k.current_activations <= k.max_activations)::int,
         (k.current_activations >= k.max_activations)::int - (k.current_activations > k.max_activations)::int
    FROM k, dc, n WHERE NOT k.is_manual
  ON CONFLICT (product_id, shard) DO UPDATE
     SET room = c.room - 1, available = c.available + EXCLUDED.available, partially_used = c.partially_used + EXCLUDED.partially_used,
         fully_used = c.fully_used + EXCLUDED.fully_used
)
SELECT r.id, r.awaiting_license, r.held, v.name, v.is_license_managed, v.product_id FROM r, v`;

/**
 * `redeemAgain`, the second statement, run only when REDEEM_SQL claimed nothing: why the code was not redeemable,
 * and a repeat's token. `$1` code, `$2` lower-cased e-mail, `$3` the Clock's now, `$4` the new token's SHA-256,
 * `$5` SUCCESS_TOKEN_TTL_HOURS, `$6` the SHA-256 of the request's Idempotency-Key or NULL. A token is written only for
 * the same e-mail with the same key hash within the lifetime and not refunded (docs/product.md §19.1).
 */
export const REDEEM_AGAIN_SQL = `WITH f AS (
     SELECT vc.is_redeemed, vc.voided_at IS NOT NULL AS is_void, p.status AS product_status,
            r.id AS redemption_id, r.awaiting_license OR r.held_at IS NOT NULL AS awaiting_license,
            coalesce(c.email = $2, false) AS same_email,
            r.refunded_at IS NOT NULL AS refunded,
            coalesce(r.redeemed_at <= $3::timestamptz - make_interval(hours => $5), false) AS expired,
            coalesce(r.idempotency_key_hash = $6::bytea, false) AS same_key,
            -- The success page shows the product name as it was at redemption time (its first token).
            coalesce((SELECT t.product_name FROM success_tokens t WHERE t.redemption_id = r.id
                       ORDER BY t.created_at LIMIT 1), p.name) AS product_name
       FROM voucher_codes vc
       JOIN products p ON p.id = vc.product_id
       LEFT JOIN redemptions r ON r.voucher_code_id = vc.id
       LEFT JOIN customers c ON c.id = r.customer_id
      WHERE vc.code = $1
   ), t AS (
     INSERT INTO success_tokens (token_hash, redemption_id, customer_email, product_name, expires_at)
     SELECT $4, f.redemption_id, $2, f.product_name, now() + make_interval(hours => $5) FROM f
      WHERE f.same_email AND f.same_key AND NOT f.refunded AND NOT f.expired
     RETURNING redemption_id
   )
   SELECT f.is_redeemed, f.is_void, f.product_status, f.awaiting_license, f.product_name,
          CASE WHEN f.same_email THEN f.redemption_id END AS same_email_redemption_id,
          coalesce(f.refunded, false) AS refunded, f.expired, f.same_key,
          (SELECT redemption_id FROM t) AS repeated_redemption_id
     FROM f`;

export interface RedeemInput {
  code: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  ip: string | null;
  country: string | null;
  /** The clear success token: only its SHA-256 is written. */
  token: string;
  ttlHours: number;
  /** The redeem page's Idempotency-Key (only its SHA-256 is written), or null when the request carried none. */
  idempotencyKey: string | null;
  /** Held for review: the rules it matched, with their evidence (docs/product.md §25.2); null when not held. */
  heldRules: Array<{ rule: string; evidence: Record<string, unknown> }> | null;
}

/** What `success_tokens.token_hash` holds for a token (docs/product.md §18.4: the token itself is never stored). */
export function successTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export interface RedeemedRow {
  id: string;
  awaiting_license: boolean;
  held: boolean;
  name: string;
  is_license_managed: boolean;
  product_id: string;
}

/** What `redemptions.idempotency_key_hash` holds for an Idempotency-Key (docs/product.md §19.1). */
export function idempotencyKeyHash(key: string | null): Buffer | null {
  return key === null ? null : createHash('sha256').update(key, 'utf8').digest();
}

/**
 * `redeemAgain`'s answer: the code's state and, when the code was redeemed with the same e-mail (a repeat), that
 * redemption, why a repeat was refused, and whether a fresh token was issued for it.
 */
export interface RedeemAgainRow {
  is_redeemed: boolean;
  is_void: boolean;
  product_status: string;
  awaiting_license: boolean | null;
  product_name: string;
  /** The redemption made with this code and this e-mail, if any (granted or refused, the repeat is its history). */
  same_email_redemption_id: string | null;
  /** The redemption was refunded since. */
  refunded: boolean;
  /** Past the token lifetime (`SUCCESS_TOKEN_TTL_HOURS`). */
  expired: boolean;
  /** The request's Idempotency-Key is the one stored with the redemption. */
  same_key: boolean;
  /** Set when a fresh token was written: the same key, code and e-mail within the lifetime. */
  repeated_redemption_id: string | null;
}
