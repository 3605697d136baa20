import { HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { adapterFor } from './marketplace-adapters';
import { MarketplaceCheckService } from './marketplace-check.service';
import { MarketplaceInboundService } from './marketplace-inbound.service';
import { DuePull, MarketplaceRepository } from './marketplace.repository';

/** A failed pull is tried again after at most this long (or the connection's interval, if shorter). */
const PULL_RETRY_SECONDS = 30;

/**
 * The pull (docs/product.md §24.5) for marketplaces without push: every `pullIntervalSeconds`,
 * `GET {baseUrl}/events?after=<cursor>` (signed, empty body), the same events applied the same way, the cursor kept per
 * connection. A pull that fails keeps the cursor, is tried again soon and shows its error on the connection
 * (`lastPullError`); an event the service refuses (bad input, unknown externalRef) is named there too and the pull goes
 * on past it.
 */
@Injectable()
export class MarketplacePullService {
  private readonly logger = new Logger(MarketplacePullService.name);

  constructor(
    private readonly connections: MarketplaceRepository,
    private readonly inbound: MarketplaceInboundService,
    private readonly check: MarketplaceCheckService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every due connection, once (claimed: another process skips it meanwhile). Answers how many were pulled. */
  async pullDue(): Promise<number> {
    const claimSeconds = Math.ceil((this.config.marketplaceTimeoutMs * 2) / 1000) + 30;
    const due = await this.connections.claimDuePulls(claimSeconds);
    for (const pull of due) await this.pullOne(pull);
    return due.length;
  }

  private async pullOne(pull: DuePull): Promise<void> {
    const actor = { adminUserId: null, ipAddress: null, userAgent: `marketplace ${pull.id} (pull)` };
    try {
      const { events, cursor } = await adapterFor(pull.adapter).pull(this.check.callOf(pull), pull.cursor);
      const refused: string[] = [];
      for (const event of events) {
        try {
          await this.inbound.apply(pull.id, event, actor);
        } catch (err) {
          if (!(err instanceof HttpException)) throw err;
          refused.push(`${String((event as { id?: unknown })?.id ?? '?').slice(0, 40)}: ${err.message}`);
        }
      }
      const error = refused.length ? `Refused ${refused.length} event(s): ${refused.join('; ')}` : null;
      await this.connections.pulled(pull.id, cursor, error, pull.pullIntervalSeconds);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn(`Pulling marketplace ${pull.id} failed: ${message}`);
      await this.connections.pulled(pull.id, null, message, Math.min(PULL_RETRY_SECONDS, pull.pullIntervalSeconds));
    }
  }
}
