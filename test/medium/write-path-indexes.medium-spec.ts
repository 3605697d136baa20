import { RedemptionActivityRepository } from '../../backend/src/modules/redemption/redemption-activity.repository';
import { RedemptionMailOutboxRepository } from '../../backend/src/modules/redemption/redemption-mail-outbox.repository';
import { RedemptionRetentionRepository } from '../../backend/src/modules/redemption/redemption-retention.repository';
import { RedemptionRepository } from '../../backend/src/modules/redemption/redemption.repository';
import { StatsRepository } from '../../backend/src/modules/stats/stats.repository';
import { productId, PRODUCTS } from '../helpers/factories';
import {
  insertBulkRedemptions,
  MediumDatabase,
  planAtRows,
  SentStatement,
  startMediumDatabase,
  statementsSent,
} from '../helpers/medium';

/**
 * Migration 1763843000000 took three indexes off the redemption's write path (docs/benchmarks.md "Three indexes
 * fewer"); what they served is read from the indexes that remain. Here the e-mail sweeps, the backlog metric,
 * retention and the pool forecast answer as before on 6,000 redemptions (pending and sent, exported and not, old and
 * new), and, planned with ten million rows' statistics, read only the index ranges they need: never the whole table,
 * and the sweep never sorts every pending e-mail to take its oldest few.
 */
describe('the reads of the dropped write-path indexes (medium)', () => {
  let m: MediumDatabase;
  let product: string;

  beforeAll(async () => {
    m = await startMediumDatabase();
    product = await productId(m.db, PRODUCTS.homeBusinessMac);
    // Row g: redeemed g hours ago (retention is asked for 200 days below); every third pending, every second exported.
    await insertBulkRedemptions(m.db, product, 6000, 'sweep', {
      email_status: `CASE WHEN g % 3 = 0 THEN 'pending' ELSE 'sent' END`,
      exported: 'g % 2 = 0',
      redeemed_at: 'now() - make_interval(hours => g)',
    });
    await m.db.query(`ANALYZE`);
  });
  afterAll(() => m?.close());

  /** The plan PostgreSQL picks for a statement with ten million redemptions' statistics on these pages. */
  const planAtTenMillion = (statement: SentStatement) => planAtRows(m.db, statement, ['redemptions']);
  const pendingOldestFirst = async (): Promise<string[]> =>
    (await m.db.query(`SELECT id FROM redemptions WHERE email_status = 'pending' ORDER BY redeemed_at`)).map(
      (r: { id: string }) => r.id,
    );

  it('sweeps the oldest pending e-mails first, merging two ordered ranges of the status index, no sort of them all', async () => {
    const outbox = new RedemptionMailOutboxRepository(m.database, m.cipher);
    const { result, sent } = await statementsSent(m.db, () => outbox.findStalePending(60_000, 25));
    expect(result).toEqual((await pendingOldestFirst()).slice(0, 25));
    const plan = await planAtTenMillion(sent[0]);
    expect(plan).toContain('Merge Append');
    expect(plan.match(/Index Scan Backward using idx_redemptions_status_list/g)).toHaveLength(2);
    expect(plan).not.toMatch(/Seq Scan|Sort\b(?! Key)/);
  });

  it('sweeps no further than the e-mails redeemed before its window: none is stale, none is read', async () => {
    // Every pending e-mail here was redeemed within the last 6,000 hours: a window of a year finds none, and reads
    // only the index entries where the ranges start (it read every pending e-mail to the end: 1.9 s a minute at ten
    // million redemptions, docs/benchmarks.md "The mail sweep's range").
    const outbox = new RedemptionMailOutboxRepository(m.database, m.cipher);
    const { result, sent } = await statementsSent(m.db, () => outbox.findStalePending(365 * 86_400_000, 25));
    expect(result).toEqual([]);
    const [{ 'QUERY PLAN': plan }] = await m.db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sent[0].sql}`, sent[0].params);
    const scans: Array<{ 'Node Type': string; 'Actual Rows': number; 'Rows Removed by Filter'?: number }> = [];
    const walk = (node: any) => {
      if (/Scan/.test(node['Node Type'])) scans.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan);
    expect(scans).toHaveLength(2);
    for (const scan of scans) expect(scan).toMatchObject({ 'Actual Rows': 0, 'Rows Removed by Filter': 0 });
  });

  it('finds every unclaimed pending e-mail oldest first, and counts the backlog, from the status index', async () => {
    const repository = new RedemptionRepository(m.database, m.cipher);
    const { result, sent } = await statementsSent(m.db, () => repository.findUnclaimedPending());
    expect(result).toEqual(await pendingOldestFirst());
    expect(await planAtTenMillion(sent[0])).toContain('idx_redemptions_status_list');
    const backlog = await statementsSent(m.db, () => new StatsRepository(m.database).orderEmailBacklog());
    expect(backlog.result).toEqual({ pending: (await pendingOldestFirst()).length, failed: 0 });
    expect(backlog.result.pending).toBeGreaterThan(1000);
    const plan = await planAtTenMillion(backlog.sent[0]);
    expect(plan.match(/Index Only Scan using idx_redemptions_status_list/g)).toHaveLength(2);
    expect(plan).not.toContain('Seq Scan');
  });

  it('counts the pool forecast demand of every product from the list index', async () => {
    const activity = new RedemptionActivityRepository(m.database);
    const since = new Date(Date.now() - 100.5 * 3600_000);
    const { result, sent } = await statementsSent(m.db, () => activity.redeemedPerProductSince(since));
    expect(result).toEqual(new Map([[product, 100]]));
    const plan = await planAtTenMillion(sent[0]);
    expect(plan).toContain('idx_redemptions_list');
    expect(plan).not.toContain('Seq Scan');
  });

  it('finds the redemptions retention deletes through the list index, exported or not', async () => {
    const retention = new RedemptionRetentionRepository(m.database);
    // Older than 200 days: the rows redeemed 4,800 hours ago or more (about 1,200); a batch of 500, then the rest.
    const older = `redeemed_at < now() - interval '200 days'`;
    const [{ n: due }] = await m.db.query(`SELECT count(*)::int AS n FROM redemptions WHERE ${older}`);
    const [{ n: before }] = await m.db.query(`SELECT count(*)::int AS n FROM redemptions`);
    expect(due).toBeGreaterThan(1000);
    const { result, sent } = await statementsSent(m.db, () => retention.deleteOlderThan(200, 500));
    expect(result).toBe(500);
    expect(await planAtTenMillion(sent[0])).toContain('idx_redemptions_list');
    expect(await retention.deleteOlderThan(200, 5000)).toBe(due - 500);
    const left = await m.db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE ${older})::int AS due FROM redemptions`,
    );
    expect(left[0]).toEqual({ n: before - due, due: 0 });
  });
});
