import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { CachedValue } from '../../common/utils/cached-value';
import { Clock } from '../../common/clock';
import { addressGroup } from '../../common/utils/client-ip';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuditLog } from '../audit/audit-log';
import { FAILED_LOGIN_ACTIONS } from '../audit/address-counted';
import { BlockedIpRepository } from './blocked-ip.repository';
import { DomainEvents } from '../../events/domain-events.service';

/**
 * `blocked_ips.reason` of a block for guessing voucher codes (docs/product.md §18.2): such an address gets 429
 * `Too many invalid voucher codes…` instead of the 403 of a login block, and the web app still loads.
 */
export const GUESS_BLOCK_REASON = 'voucher-guessing';

/** Why an address is blocked, when it is. */
export type BlockKind = 'login' | 'guessing';

/** The block the blocked-IP middleware found for a request (null: none), so the global guard need not look again. */
export const CHECKED_BLOCK = Symbol('checkedBlock');
export type BlockCheckedRequest = Request & { [CHECKED_BLOCK]?: BlockKind | null };

interface Block {
  /** End of the block in ms (Infinity for no expiry). */
  until: number;
  kind: BlockKind;
}

/**
 * `blocked_ips` as an in-memory map that is re-read every BLOCKED_IP_CACHE_MS, so the public redeem
 * path does not pay a query per request. Blocks made by this instance take effect here at once;
 * those made elsewhere (another instance, SQL) within the cache interval. An entry is an address or,
 * for IPv6 blocks made for guessing or failed logins, a /64 (`2001:db8:0:1::/64`, see addressGroup). Time is the Clock's.
 */
@Injectable()
export class BlockedIpService {
  private readonly logger = new Logger(BlockedIpService.name);
  private readonly blocked: CachedValue<Map<string, Block>>;

  constructor(
    private readonly blockedIps: BlockedIpRepository,
    private readonly audit: AuditLog,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.blocked = new CachedValue(
      (previous) => this.load(previous),
      () => this.config.blockedIpCacheMs,
      clock,
    );
  }

  async isBlocked(ip: string): Promise<boolean> {
    return (await this.blockOf(ip)) !== null;
  }

  /** Whether `ip` (or its /64) is blocked, and why. */
  async blockOf(ip: string): Promise<BlockKind | null> {
    const blocked = await this.blocked.get();
    const now = this.clock.now().getTime();
    for (const key of ip ? new Set([ip, addressGroup(ip)]) : []) {
      const block = blocked.get(key);
      if (block && block.until > now) return block.kind;
    }
    return null;
  }

  /**
   * After a failed login from `ip`: block its address group (an IPv4 address, an IPv6 /64, as the guessing block
   * counts) when the group reached the threshold within the window. The failures are the audit rows' (`ip_group`).
   */
  async noteFailedLogin(ip: string, userAgent: string | null): Promise<void> {
    const { loginIpBlockThreshold: threshold, loginIpBlockWindowMinutes: window } = this.config;
    const group = addressGroup(ip);
    // Rows without a valid address have no group: forged values stay under the guard's other limits.
    if (threshold === 0 || group === 'invalid') return;
    const failures = await this.audit.countFailuresFrom(group, FAILED_LOGIN_ACTIONS, window);
    if (failures < threshold) return;
    await this.block(group, `${failures} failed logins within ${window} minutes`, this.config.loginIpBlockMinutes);
    await this.events.publish('ip.blocked', {
      success: true,
      resource: 'blocked_ips',
      resourceId: group,
      ipAddress: ip,
      userAgent,
      details: { failures, windowMinutes: window, blockMinutes: this.config.loginIpBlockMinutes },
    });
  }

  /** Blocks `address` (an IP or an IPv6 /64) for `minutes` from the Clock's now; answers the end. */
  async block(address: string, reason: string, minutes: number): Promise<Date> {
    const expiresAt = new Date(this.clock.now().getTime() + minutes * 60_000);
    await this.blockedIps.block(address, reason.slice(0, 255), expiresAt);
    this.blocked.current()?.set(address, { until: expiresAt.getTime(), kind: kindOf(reason) });
    return expiresAt;
  }

  /** The active blocks; concurrent requests share one read (CachedValue). */
  private async load(previous: Map<string, Block> | undefined): Promise<Map<string, Block>> {
    try {
      const rows = await this.blockedIps.listActive(this.clock.now());
      return new Map(
        rows.map((r) => [
          r.ipAddress,
          { until: r.expiresAt ? new Date(r.expiresAt).getTime() : Infinity, kind: kindOf(r.reason) },
        ]),
      );
    } catch (err) {
      // Keep the last known list: a database hiccup must not take every route down with it.
      this.logger.error(`Could not read blocked IPs: ${err instanceof Error ? err.message : err}`);
      return previous ?? new Map();
    }
  }
}

function kindOf(reason: string | null): BlockKind {
  return reason?.startsWith(GUESS_BLOCK_REASON) ? 'guessing' : 'login';
}
