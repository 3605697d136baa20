import { MigrationInterface, QueryRunner } from 'typeorm';

const UUID = `'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`;

/**
 * A redemption's history reads its audit rows by the redemption they belong to (docs/operations.md "Redemption
 * history"): `security_audit_log.redemption_id`, written by the audit listener for the events about one redemption,
 * indexed where set. Rows written before are backfilled here, once: a row about one redemption always named it as
 * its resource (`resource = 'redemption'`, `resource_id`). A manual assignment's row is tied to its assignment by
 * the key it assigned (`details.licenseKeyId`, and `details.licenseKeyIds` of a bulk assignment from now on): bulk
 * rows written before, and any single one without the key's id, get the keys of the assignments made in their
 * transaction (the same `now()`), the match the history made at every read until now.
 */
export class AuditRowsNameTheirRedemption1796190468411 implements MigrationInterface {
  name = 'AuditRowsNameTheirRedemption1796190468411';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE security_audit_log ADD COLUMN redemption_id uuid`);
    await q.query(
      `UPDATE security_audit_log SET redemption_id = resource_id::uuid
        WHERE resource = 'redemption' AND resource_id ~* ${UUID}`,
    );
    await q.query(
      `UPDATE security_audit_log a SET details = a.details || jsonb_build_object('licenseKeyIds', k.ids)
         FROM (SELECT r.id, jsonb_agg(DISTINCT la.license_key_id) AS ids
                 FROM security_audit_log r
                 JOIN license_assignments la ON la.assigned_at = r.created_at
                  AND la.redemption_id::text IN (SELECT jsonb_array_elements_text(r.details -> 'redemptionIds'))
                WHERE r.action = 'redemption.bulk-assign-license' AND r.success AND r.details ? 'redemptionIds'
                  AND NOT r.details ? 'licenseKeyIds'
                GROUP BY r.id) k
        WHERE a.id = k.id`,
    );
    await q.query(
      `UPDATE security_audit_log a
          SET details = coalesce(a.details, '{}') || jsonb_build_object('licenseKeyId', la.license_key_id)
         FROM license_assignments la
        WHERE a.action = 'redemption.assign-license' AND a.success AND NOT coalesce(a.details ? 'licenseKeyId', false)
          AND la.redemption_id = a.redemption_id AND la.assigned_at = a.created_at`,
    );
    await q.query(
      `CREATE INDEX idx_security_audit_log_redemption ON security_audit_log (redemption_id, created_at)
        WHERE redemption_id IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX idx_security_audit_log_redemption`);
    await q.query(`ALTER TABLE security_audit_log DROP COLUMN redemption_id`);
  }
}
