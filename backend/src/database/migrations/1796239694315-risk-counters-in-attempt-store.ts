import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The counting rules count in the attempt store every instance shares (Redis), not in PostgreSQL: a redemption with
 * every rule on wrote two counter rows and read their windows, a third of its throughput (docs/benchmarks.md). The
 * counts start again from zero: at most one window (24 hours) of them is lost, as when a rule is switched on.
 */
export class RiskCountersInAttemptStore1796239694315 implements MigrationInterface {
  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE risk_counters`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE risk_counters (
        rule text NOT NULL,
        subject bytea NOT NULL,
        bucket timestamptz NOT NULL,
        count integer NOT NULL,
        CONSTRAINT pk_risk_counters PRIMARY KEY (rule, subject, bucket)
      )`);
    await q.query(`CREATE INDEX idx_risk_counters_bucket ON risk_counters (bucket)`);
  }
}
