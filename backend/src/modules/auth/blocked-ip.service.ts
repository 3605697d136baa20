import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuditService } from '../audit/audit.service';
import { BlockedIpRepository } from './blocked-ip.repository';

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
    private readonly blockedIps: BlockedIpRepository,
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
    const failures = await this.audit.countFailuresFrom(ip, FAILED_LOGIN_ACTIONS, window);
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
    const expiresAt = await this.blockedIps.block(ip, reason.slice(0, 255), minutes);
    this.blocked.set(ip, expiresAt.getTime());
  }

  private reload(): Promise<void> {
    // Concurrent requests share one read.
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    try {
      const rows = await this.blockedIps.listActive();
      this.blocked = new Map(rows.map((r) => [r.ipAddress, r.expiresAt ? new Date(r.expiresAt).getTime() : Infinity]));
    } catch (err) {
      // Keep the last known list: a database hiccup must not take every route down with it.
      this.logger.error(`Could not read blocked IPs: ${err instanceof Error ? err.message : err}`);
    }
    this.loadedAt = Date.now();
  }
}
