import { MANUAL_KEY_PREFIX } from '../../backend/src/modules/license/entities/license-key.entity';
import { LicenseRepository } from '../../backend/src/modules/license/license.repository';
import {
  idempotencyKeyHash,
  REDEEM_SQL,
  successTokenHash,
} from '../../backend/src/modules/redemption/redemption.repository';
import { MISMATCHES_SQL } from '../helpers/counters';
import { countedKeyUpdate } from '../helpers/counted-sql';
import { addCodes, addLicenseKey, keyHash, licenseManagedProduct, randomCode } from '../helpers/factories';
import { insertBulkRedemptions, MediumDatabase, startMediumDatabase } from '../helpers/medium';
import { randomHex } from '../helpers/seed';

const CONSTRAINT = 'chk_license_keys_activations';
const CHECK_VIOLATION = '23514';

/**
 * Issue 55 item 3: `chk_license_keys_activations` (0 ≤ current_activations ≤ max_activations) is the last line of
 * defence of every writer of a key's activation count. Each writer keeps within the limit by its own means: the
 * redemption statement picks a key with room, the pool assignment (Fix Pending, and the redemption's second try through
 * PoolAssignmentService) adds an activation to the key `lockFreeKey` found with room, a manual key (single assignment)
 * and a volume key (bulk assignment) get one more activation's room with each activation. Each test puts a key at its
 * limit and has the writer's own statement add an activation with that means out of the way: PostgreSQL refuses it
 * (SQLSTATE 23514, naming the constraint) and nothing of the statement is written. With the constraint dropped from
 * this file's database, every test here fails.
 */
describe('the activation limit is the database’s (medium)', () => {
  let m: MediumDatabase;
  let licenses: LicenseRepository;

  beforeAll(async () => {
    m = await startMediumDatabase();
    licenses = new LicenseRepository(m.database, m.cipher);
  });
  afterAll(() => m?.close());

  /** The refusal of `work`: a check violation of the activation limit. */
  const expectRefused = async (work: Promise<unknown>) => {
    const err = await work.then(
      () => undefined,
      (e: { code?: string; constraint?: string }) => e,
    );
    expect(err && { code: err.code, constraint: err.constraint }).toEqual({
      code: CHECK_VIOLATION,
      constraint: CONSTRAINT,
    });
  };
  /** `sql` without `guard`, which it must contain once: the statement as its writer sends it, less that guard. */
  const without = (sql: string, guard: string) => {
    expect(sql.split(guard)).toHaveLength(2);
    return sql.replace(guard, '');
  };
  const keyRow = async (id: string) =>
    (
      await m.db.query(
        `SELECT current_activations AS current, max_activations AS max,
                (SELECT count(*)::int FROM license_assignments a WHERE a.license_key_id = k.id) AS assignments
           FROM license_keys k WHERE id = $1`,
        [id],
      )
    )[0] as { current: number; max: number; assignments: number };
  /** A pool key of its own product, at its limit of `max` activations. */
  const fullPoolKey = async (max: number) => {
    const product = await licenseManagedProduct(m.db, `Limit ${randomCode('P')}`);
    const key = await addLicenseKey(m.db, product, `LIM-${randomHex(6).toUpperCase()}`, { maxActivations: max });
    await m.db.query(countedKeyUpdate('current_activations = k.max_activations', 'k.id = $1'), [key]);
    expect(await keyRow(key)).toMatchObject({ current: max, max });
    return { product, key };
  };
  /** `n` redemptions of `product` waiting for a licence (manual processing), written by SQL, counted. */
  const waiting = async (product: string, n: number): Promise<string[]> => {
    const prefix = `wait${randomHex(3)}`;
    await insertBulkRedemptions(m.db, product, n, prefix, { awaiting_license: 'true', email_status: `'pending'` });
    const rows: Array<{ id: string }> = await m.db.query(
      `SELECT r.id FROM redemptions r JOIN customers c ON c.id = r.customer_id WHERE c.email LIKE $1 ORDER BY r.id`,
      [`${prefix}%`],
    );
    return rows.map((r) => r.id);
  };
  /** The statements `fn` sends through the DataSource (in or out of a transaction), as sent. */
  const recorded = async (fn: () => Promise<unknown>) => {
    const sent: Array<{ sql: string; params: unknown[] }> = [];
    const run = m.db.query.bind(m.db);
    const spy = jest.spyOn(m.db, 'query').mockImplementation(((sql: string, params?: unknown[], runner?: never) => {
      sent.push({ sql, params: params ?? [] });
      return run(sql, params, runner);
    }) as typeof m.db.query);
    try {
      await fn();
    } finally {
      spy.mockRestore();
    }
    return sent;
  };

  it('the redemption statement, without its pick of a key with room, is refused: nothing redeemed', async () => {
    const { product, key } = await fullPoolKey(1);
    const [code] = await addCodes(m.db, product, [randomCode('LIM')]);
    const email = `limit.${randomHex(4)}@example.com`;
    // RedemptionRepository.redeem's parameters, in its order: code, names, e-mail, phone, IP, country, token, TTL, key,
    // held for review (no), the rules that held it (none).
    const token = successTokenHash(randomHex(32));
    const values = [
      code,
      'Ann',
      'Lee',
      email,
      null,
      '198.51.100.7',
      null,
      token,
      72,
      idempotencyKeyHash(null),
      false,
      null,
    ];
    const picksAnyKey = without(REDEEM_SQL, 'AND lk.current_activations < lk.max_activations');
    await expectRefused(m.db.query(picksAnyKey, values));

    // One statement: the code's claim, the customer, the redemption and its token went with the refused activation.
    expect(await keyRow(key)).toEqual({ current: 1, max: 1, assignments: 0 });
    const [state] = await m.db.query(
      `SELECT v.is_redeemed, (SELECT count(*)::int FROM redemptions r WHERE r.voucher_code_id = v.id) AS redemptions,
              (SELECT count(*)::int FROM customers c WHERE c.email = $2) AS customers
         FROM voucher_codes v WHERE v.code = $1`,
      [code, email],
    );
    expect(state).toEqual({ is_redeemed: false, redemptions: 0, customers: 0 });
    expect(await m.db.query(MISMATCHES_SQL)).toEqual([]);
  });

  it('the pool assignment (Fix Pending, a redemption’s second try) on a key without room is refused', async () => {
    const { product, key } = await fullPoolKey(2);
    const [redemption] = await waiting(product, 1);
    // What lockFreeKey guards: no key of this product has room, so it finds none.
    expect(await licenses.lockFreeKey(product)).toBeUndefined();
    await expectRefused(
      m.database.transaction(async () => {
        await licenses.assignPoolKey(key, redemption);
      }),
    );
    expect(await keyRow(key)).toEqual({ current: 2, max: 2, assignments: 0 });
    const [r] = await m.db.query(`SELECT awaiting_license FROM redemptions WHERE id = $1`, [redemption]);
    expect(r).toEqual({ awaiting_license: true });
    expect(await m.db.query(MISMATCHES_SQL)).toEqual([]);
  });

  it('a manual key (single assignment) gains room with each use; its statement without it is refused', async () => {
    const product = await licenseManagedProduct(m.db, `Limit ${randomCode('P')}`);
    const [first, second, third] = await waiting(product, 3);
    const stored = `${MANUAL_KEY_PREFIX}LIM-${randomHex(6).toUpperCase()}`;
    const link = 'https://downloads.example.com/limit.exe';
    const { keyId } = await m.database.transaction(() => licenses.assignManualKey(product, stored, link, first));
    expect(await keyRow(keyId)).toEqual({ current: 1, max: 1, assignments: 1 });

    // At its limit, given to a second redemption: one activation more and one more activation's room.
    const sent = await recorded(() =>
      m.database.transaction(() => licenses.assignManualKey(product, stored, link, second)),
    );
    expect(await keyRow(keyId)).toEqual({ current: 2, max: 2, assignments: 2 });
    const bump = sent.find((s) => s.sql.includes('SET current_activations = k.current_activations + 1'));
    expect(bump?.params).toEqual([keyId, second]);

    // The same statement for a third redemption, without the room it gives: refused.
    const noRoom = without(bump!.sql, 'max_activations = greatest(k.max_activations, k.current_activations + 1),');
    await expectRefused(m.db.query(noRoom, [keyId, third]));
    expect(await keyRow(keyId)).toEqual({ current: 2, max: 2, assignments: 2 });
    expect(await m.db.query(MISMATCHES_SQL)).toEqual([]);
  });

  it('a volume key (bulk assignment) gains room per redemption; its statement without it is refused', async () => {
    const product = await licenseManagedProduct(m.db, `Limit ${randomCode('P')}`);
    const stored = `${MANUAL_KEY_PREFIX}VOL-${randomHex(6).toUpperCase()}`;
    const link = 'https://downloads.example.com/volume.exe';
    const redemptions = await waiting(product, 6);
    // Three redemptions: the key's row is made with three activations of three.
    await m.database.transaction(() => licenses.assignVolumeKey(product, stored, link, redemptions.slice(0, 3)));
    const [{ id: key }] = await m.db.query(`SELECT id FROM license_keys WHERE key_hash = $1`, [keyHash(m.db, stored)]);
    expect(await keyRow(key)).toEqual({ current: 3, max: 3, assignments: 3 });

    // At its limit, given to two more: two activations more and two more activations' room.
    const sent = await recorded(() =>
      m.database.transaction(() => licenses.assignVolumeKey(product, stored, link, redemptions.slice(3, 5))),
    );
    expect(await keyRow(key)).toEqual({ current: 5, max: 5, assignments: 5 });
    const update = sent.find((s) => s.sql.includes('current_activations = k.current_activations + $2'));
    expect(update?.params).toEqual([product, 2, keyHash(m.db, stored), link]);

    // The same statement for the last one, without the room it gives: refused.
    const noRoom = without(update!.sql, 'max_activations = k.max_activations + $2,');
    await expectRefused(m.db.query(noRoom, [product, 1, keyHash(m.db, stored), link]));
    expect(await keyRow(key)).toEqual({ current: 5, max: 5, assignments: 5 });
    expect(await m.db.query(MISMATCHES_SQL)).toEqual([]);
  });
});
