import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `security_audit_log.ip_group` is kept only where a limit reads it: the failed sign-ins the login IP block counts
 * (modules/audit/address-counted.ts). Every other row loses the group it was written with: a customer's address must
 * not outlive an erasure in a column no limit needs. The address itself (`ip_address`) stays as it was.
 */
export class AuditIpGroupWhereCounted1796192688776 implements MigrationInterface {
  name = 'AuditIpGroupWhereCounted1796192688776';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE security_audit_log SET ip_group = NULL
        WHERE ip_group IS NOT NULL
          AND (success OR action NOT IN ('login.failure', 'login.locked', 'login.2fa-failure'))`,
    );
  }

  public async down(): Promise<void> {
    // The groups cleared are not needed by anything; they are not written back.
  }
}
