import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The login IP block counts failed logins per address group, as the guessing block does (docs/security.md): an
 * IPv4 address, or an IPv6 /64, so the addresses of one IPv6 line do not each get their own allowance. Each audit row
 * keeps its group (`ip_group`, written by AuditService); older rows have none and only ever counted for the last
 * minutes. The index on the bare address served only that count and goes.
 */
export class AuditIpGroup1763836000100 implements MigrationInterface {
  name = 'AuditIpGroup1763836000100';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE security_audit_log ADD COLUMN ip_group varchar(45)`);
    await q.query(
      `CREATE INDEX idx_security_audit_log_ip_group ON security_audit_log (ip_group, created_at) WHERE NOT success`,
    );
    await q.query(`DROP INDEX IF EXISTS idx_security_audit_log_ip`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX idx_security_audit_log_ip ON security_audit_log (ip_address, created_at)`);
    await q.query(`DROP INDEX IF EXISTS idx_security_audit_log_ip_group`);
    await q.query(`ALTER TABLE security_audit_log DROP COLUMN ip_group`);
  }
}
