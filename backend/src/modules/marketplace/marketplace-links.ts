import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { MarketplaceRepository, ProductLink } from './marketplace.repository';

/** How often an instance asks whether another changed the connections (one tiny statement, off the request path). */
export const LINKS_VERSION_CHECK_MS = 2_000;

/**
 * The connected products, held in memory so that the redemption of a product without a connection pays nothing: no
 * statement, no round trip (`of` is a Map lookup). Loaded before the app listens, again at once after a change made
 * here, and within LINKS_VERSION_CHECK_MS after a change made by another instance (a timer compares a cheap version
 * of the connections table; the links are read again only when it moved).
 */
@Injectable()
export class MarketplaceLinks implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(MarketplaceLinks.name);
  private byProduct = new Map<string, ProductLink>();
  private checkingAtRedeem = false;
  private version: string | undefined;
  private timer?: NodeJS.Timeout;
  private loading?: Promise<void>;

  constructor(private readonly connections: MarketplaceRepository) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.refresh(), LINKS_VERSION_CHECK_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The product's connection, if it has one. */
  of(productId: string): ProductLink | undefined {
    return this.byProduct.get(productId);
  }

  /** The products of each connection that reports its redemptions. */
  reportingByConnection(): Map<string, ProductLink[]> {
    const out = new Map<string, ProductLink[]>();
    for (const link of this.byProduct.values()) {
      if (link.reportRedemptions) out.set(link.connectionId, [...(out.get(link.connectionId) ?? []), link]);
    }
    return out;
  }

  /** Some connection checks its codes at redeem (else the redemption path asks nothing). */
  anyCheckAtRedeem(): boolean {
    return this.checkingAtRedeem;
  }

  /** A connection was changed here: read again now (after a read that may have begun before the change). */
  async changed(): Promise<void> {
    await this.loading?.catch(() => undefined);
    await this.reload();
  }

  private async refresh(): Promise<void> {
    try {
      if ((await this.connections.linksVersion()) !== this.version) await this.reload();
    } catch (err) {
      this.logger.warn(`Could not check the marketplace connections: ${err instanceof Error ? err.message : err}`);
    }
  }

  private reload(): Promise<void> {
    this.loading ??= (async () => {
      const version = await this.connections.linksVersion();
      const links = await this.connections.links();
      this.byProduct = new Map(links.map((l) => [l.productId, l]));
      this.checkingAtRedeem = links.some((l) => l.checkAtRedeem);
      this.version = version;
    })().finally(() => (this.loading = undefined));
    return this.loading;
  }
}
