import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuditService } from '../audit/audit.service';

/** Failed-login audit actions that count towards blocking the client's IP. */
export const FAILED_LOGIN_ACTIONS = ['login.failure', 'login.locked', 'login.2fa-failure'];

/**
 * `blocked_ips` as an in-memory set that is re-read every BLOCKED_IP_CACHE_MS, so the public redeem
 * path does not pay a query per request. Blocks made by this instance take effect here at once;
 * those made elsewhere (another instance, SQL) within the cache interval.
 */
@Injectable()
export class BlockedIpService {
  private readonly logger = new Logger(BlockedIpService.name);
  /** ip → end of the block in ms (Infinity for no expiry). */
  private blocked = new Map<string, number>();
  private loadedAt = -Infinity;
  private loading?: Promise<void>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async isBlocked(ip: string): Promise<boolean> {
    if (Date.now() - this.loadedAt >= this.config.blockedIpCacheMs) await this.reload();
    const until = this.blocked.get(ip);
    return until !== undefined && until > Date.now();
  }

  /** After a failed login from `ip`: block it when it reached the threshold within the window. */
  async noteFailedLogin(ip: string, userAgent: string | null): Promise<void> {
    const { loginIpBlockThreshold: threshold, loginIpBlockWindowMinutes: window } = this.config;
    if (threshold === 0 || !ip) return;
    const [{ failures }] = await this.dataSource.query(
      `SELECT count(*)::int AS failures FROM security_audit_log
        WHERE ip_address = $1 AND NOT success AND action = ANY($2) AND created_at > now() - make_interval(mins => $3)`,
      [ip, FAILED_LOGIN_ACTIONS, window],
    );
    if (failures < threshold) return;
    await this.block(ip, `${failures} failed logins within ${window} minutes`, this.config.loginIpBlockMinutes);
    await this.audit.record({
      action: 'ip.blocked',
      success: true,
      resource: 'blocked_ips',
      resourceId: ip,
      ipAddress: ip,
      userAgent,
      details: { failures, windowMinutes: window, blockMinutes: this.config.loginIpBlockMinutes },
    });
  }

  async block(ip: string, reason: string, minutes: number): Promise<void> {
    const [row] = await this.dataSource.query(
      `INSERT INTO blocked_ips (ip_address, reason, expires_at) VALUES ($1, $2, now() + make_interval(mins => $3))
       ON CONFLICT (ip_address) DO UPDATE
         SET reason = EXCLUDED.reason, blocked_at = now(), expires_at = EXCLUDED.expires_at, is_active = true
       RETURNING expires_at`,
      [ip, reason.slice(0, 255), minutes],
    );
    this.blocked.set(ip, new Date(row.expires_at).getTime());
  }

  private reload(): Promise<void> {
    // Concurrent requests share one read.
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    try {
      const rows: { ip_address: string; expires_at: Date | null }[] = await this.dataSource.query(
        `SELECT ip_address, expires_at FROM blocked_ips WHERE is_active AND (expires_at IS NULL OR expires_at > now())`,
      );
      this.blocked = new Map(rows.map((r) => [r.ip_address, r.expires_at ? new Date(r.expires_at).getTime() : Infinity]));
    } catch (err) {
      // Keep the last known list: a database hiccup must not take every route down with it.
      this.logger.error(`Could not read blocked IPs: ${err instanceof Error ? err.message : err}`);
    }
    this.loadedAt = Date.now();
  }
}
