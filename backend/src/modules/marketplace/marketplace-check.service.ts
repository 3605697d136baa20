import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { RedeemCheck, RedeemCheckVerdict } from '../redemption/redeem-check';
import { VoucherCodeRepository } from '../voucher/voucher-code.repository';
import { VoucherVoidService } from '../voucher/voucher-void.service';
import { insecureTargetList, WebhookUrlPolicy } from '../webhook/webhook-url-guard';
import { adapterFor } from './marketplace-adapters';
import { MarketplaceLinks } from './marketplace-links';
import { MarketplaceMetrics } from './marketplace-metrics';
import { MarketplaceReportRepository } from './marketplace-report.repository';
import { ProductLink } from './marketplace.repository';

/** How long a code accepted while its marketplace was unreachable waits for its redemption to be re-checked. */
const UNCONFIRMED_TTL_MS = 60_000;

/**
 * The live check at redeem (docs/product.md §24.6), before the code is claimed: only while some connection has
 * `checkAtRedeem`, and then one indexed read for the code's product; a product without such a connection is
 * claimed at once. `refunded`/`cancelled` void the code; `unknown`/`redeemed` answer as a local miss; no answer within
 * MARKETPLACE_TIMEOUT_MS: `accept` claims it and re-checks it later (`takeUnconfirmed`), `refuse` answers 503.
 */
@Injectable()
export class MarketplaceCheckService extends RedeemCheck {
  private readonly logger = new Logger(MarketplaceCheckService.name);
  private readonly policy: WebhookUrlPolicy;
  /** Codes claimed without an answer, waiting for their redemption (code → when). */
  private readonly unconfirmed = new Map<string, number>();

  constructor(
    private readonly links: MarketplaceLinks,
    private readonly codes: VoucherCodeRepository,
    private readonly voids: VoucherVoidService,
    private readonly reports: MarketplaceReportRepository,
    private readonly metrics: MarketplaceMetrics,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
    this.policy = { insecureTargets: insecureTargetList(config.webhookInsecureTargets) };
  }

  beforeClaim(code: string): Promise<RedeemCheckVerdict> | undefined {
    if (!this.links.anyCheckAtRedeem()) return undefined;
    return this.checkCode(code);
  }

  /** The code was accepted unchecked (its marketplace unreachable): its redemption is to be re-checked. */
  takeUnconfirmed(code: string): boolean {
    const at = this.unconfirmed.get(code);
    this.unconfirmed.delete(code);
    return at !== undefined && this.clock.now().getTime() - at < UNCONFIRMED_TTL_MS;
  }

  private async checkCode(code: string): Promise<RedeemCheckVerdict> {
    const productId = await this.codes.productOfCode(code);
    const link = productId === undefined ? undefined : this.links.of(productId);
    // No such code (the claim answers it), or a product whose connection does not check.
    if (!link?.checkAtRedeem) return 'claim';
    const end = this.metrics.checkSeconds.startTimer();
    let status: string;
    try {
      status = await adapterFor(link.adapter).check(this.callOf(link), code, link.externalRef);
    } catch (err) {
      end({ status: 'unreachable' });
      this.logger.warn(`Marketplace check of a code failed: ${err instanceof Error ? err.message : err}`);
      if (link.onUnreachable === 'refuse') return 'unconfirmed';
      this.noteUnconfirmed(code);
      return 'claim';
    }
    end({ status });
    switch (status) {
      case 'valid':
        return 'claim';
      case 'refunded':
      case 'cancelled':
        await this.voidCode(link, code);
        return 'void';
      case 'redeemed':
        return 'redeemed';
      default:
        return 'unknown';
    }
  }

  callOf(link: Pick<ProductLink, 'baseUrl' | 'secret'>) {
    return {
      baseUrl: link.baseUrl,
      secret: link.secret,
      policy: this.policy,
      timeoutMs: this.config.marketplaceTimeoutMs,
      now: () => this.clock.now(),
    };
  }

  /**
   * The marketplace refunded it: void it here too (the void's own audit row and webhook tell it). A redeemed code's
   * refund is the marketplace's own, so it is never reported back to it, as for its refund events.
   */
  private async voidCode(link: ProductLink, code: string): Promise<void> {
    await this.reports.insertRefunds(link.connectionId, [code], 'acked');
    await this.voids.voidList(link.productId, [code], {
      adminUserId: null,
      ipAddress: null,
      userAgent: `marketplace ${link.connectionId} (live check)`,
    });
  }

  private noteUnconfirmed(code: string): void {
    const now = this.clock.now().getTime();
    for (const [c, at] of this.unconfirmed) if (now - at >= UNCONFIRMED_TTL_MS) this.unconfirmed.delete(c);
    this.unconfirmed.set(code, now);
  }
}
