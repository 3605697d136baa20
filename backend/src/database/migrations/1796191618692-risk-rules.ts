import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every rule off: what `GET /api/risk/rules` answers until an admin sets them (docs/product.md §25.1). */
const RULES_OFF = JSON.stringify({
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
});

/**
 * The risk rules (docs/product.md §25.1, backend/src/modules/risk): their one settings row, the blocklist with its
 * hit counts and the counting rules' per-bucket counters. New tables only, all small or empty: nothing else is touched.
 */
export class RiskRules1796191618692 implements MigrationInterface {
  name = 'RiskRules1796191618692';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE risk_settings (
        id smallint NOT NULL DEFAULT 1,
        rules jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_risk_settings PRIMARY KEY (id),
        CONSTRAINT chk_risk_settings_one_row CHECK (id = 1)
      )`);
    await q.query(`INSERT INTO risk_settings (id, rules) VALUES (1, $1::jsonb)`, [RULES_OFF]);
    await q.query(`
      CREATE TABLE risk_blocklist (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        kind text NOT NULL,
        value text NOT NULL,
        hits integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_risk_blocklist PRIMARY KEY (id),
        CONSTRAINT uq_risk_blocklist_kind_value UNIQUE (kind, value),
        CONSTRAINT chk_risk_blocklist_kind CHECK (kind IN ('email', 'domain', 'address', 'phone'))
      )`);
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

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE risk_counters`);
    await q.query(`DROP TABLE risk_blocklist`);
    await q.query(`DROP TABLE risk_settings`);
  }
}
