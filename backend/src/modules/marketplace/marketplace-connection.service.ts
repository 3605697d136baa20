import { pgError } from '../../common/utils/sql';
import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { RequestActor } from '../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { JobQueue } from '../jobs/job-queue';
import { ProductRepository } from '../product/product.repository';
import {
  insecureTargetList,
  resolveWebhookTarget,
  WebhookUrlError,
  WebhookUrlPolicy,
} from '../webhook/webhook-url-guard';
import { APPSUMO_BASE_URL, APPSUMO_MESSAGES } from './appsumo-adapter';
import { CreateMarketplaceDto, UpdateMarketplaceDto } from './dto/marketplace.dto';
import type { AdapterKind } from './entities/marketplace-connection.entity';
import { MarketplaceLinks } from './marketplace-links';
import { MarketplaceReportRepository } from './marketplace-report.repository';
import { ConnectedProduct, ConnectionSettings, ConnectionView, MarketplaceRepository } from './marketplace.repository';
import { SEND_MARKETPLACE_REPORT } from './marketplace.jobs';

export const MARKETPLACE_MESSAGES = {
  notFound: 'Marketplace connection not found.',
  deleted: 'Marketplace connection deleted.',
  productTaken: 'A product is already served by a marketplace connection.',
  productNotFound: 'Product not found.',
  duplicateRef: 'Each product and each externalRef may appear once per connection.',
  pullInterval: 'pullIntervalSeconds is 0 or between 10 and 86400.',
  baseUrlRequired: 'The base URL is required.',
  retried: (n: number) => `${n} dead report${n === 1 ? '' : 's'} queued again.`,
} as const;

/** The least pull interval (a marketplace is not polled more often). */
const MIN_PULL_SECONDS = 10;

/**
 * Settings → Marketplaces (docs/product.md §24.1, permission marketplaces.manage): connections with their products, the
 * secret generated here and answered once, status, retry of dead reports. Every change is audited (domain events).
 */
@Injectable()
export class MarketplaceConnectionService {
  private readonly policy: WebhookUrlPolicy;

  constructor(
    private readonly connections: MarketplaceRepository,
    private readonly products: ProductRepository,
    private readonly reports: MarketplaceReportRepository,
    private readonly links: MarketplaceLinks,
    private readonly events: DomainEvents,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.policy = { insecureTargets: insecureTargetList(config.webhookInsecureTargets) };
  }

  /**
   * A generic connection's secret is generated here; an AppSumo connection's is the partner's API key, which AppSumo
   * signs with (docs/product.md §24.4). Either is answered once.
   */
  async create(dto: CreateMarketplaceDto, actor: RequestActor): Promise<ConnectionView & { secret: string }> {
    const adapter = dto.adapter ?? 'generic';
    if (adapter === 'appsumo' && !dto.apiKey) throw new BadRequestException(APPSUMO_MESSAGES.apiKeyRequired);
    if (adapter !== 'appsumo' && dto.apiKey !== undefined) {
      throw new BadRequestException(APPSUMO_MESSAGES.apiKeyGeneric);
    }
    const settings = await this.settingsOf(dto, adapter);
    const products = this.productsOf(dto.products ?? []);
    const secret = dto.apiKey ?? `mksec_${randomBytes(32).toString('base64url')}`;
    const redemptions = await this.products.redemptionsOf(products.map((p) => p.productId));
    const connection = await this.write(() =>
      this.connections.create(settings, secret, products, redemptions, adapter),
    );
    await this.links.changed();
    await this.events.publish('marketplace.create', {
      ...actor,
      success: true,
      resource: 'marketplace',
      resourceId: connection.id,
      details: { adapter, ...settings, products },
    });
    return { ...connection, secret };
  }

  list(): Promise<ConnectionView[]> {
    return this.connections.list();
  }

  async update(id: string, dto: UpdateMarketplaceDto, actor: RequestActor): Promise<ConnectionView> {
    const current = await this.require(id);
    const given = Object.fromEntries(Object.entries(dto).filter(([, v]) => v !== undefined)) as UpdateMarketplaceDto;
    const settings = await this.settingsOf({ ...current, ...given }, current.adapter, given.baseUrl !== undefined);
    const list = dto.products && this.productsOf(dto.products);
    // The redemptions of the products it serves and will serve: where a new one starts counting, and what one it
    // stops serving counted.
    const products = list && {
      list,
      redemptions: await this.products.redemptionsOf([
        ...new Set([...current.products, ...list].map((p) => p.productId)),
      ]),
    };
    const updated = await this.write(() => this.connections.update(id, settings, products));
    if (!updated) throw new NotFoundException(MARKETPLACE_MESSAGES.notFound);
    await this.links.changed();
    await this.events.publish('marketplace.update', {
      ...actor,
      success: true,
      resource: 'marketplace',
      resourceId: id,
      details: { ...given },
    });
    return updated;
  }

  async remove(id: string, actor: RequestActor): Promise<{ success: true; message: string }> {
    const connection = await this.require(id);
    if (!(await this.connections.remove(id))) throw new NotFoundException(MARKETPLACE_MESSAGES.notFound);
    await this.links.changed();
    await this.events.publish('marketplace.delete', {
      ...actor,
      success: true,
      resource: 'marketplace',
      resourceId: id,
      details: { name: connection.name, baseUrl: connection.baseUrl },
    });
    return { success: true, message: MARKETPLACE_MESSAGES.deleted };
  }

  async status(id: string) {
    const connection = await this.require(id);
    const [figures, reports] = await Promise.all([this.connections.figures(id), this.reports.counts(id)]);
    // Counted from the products' own redemption counters: the redemption's path writes nothing for it.
    const now = await this.products.redemptionsOf(figures.servedFrom.map((p) => p.productId));
    const served = figures.servedFrom.reduce((sum, p) => sum + Math.max(0, (now.get(p.productId) ?? 0) - p.before), 0);
    return {
      codesReceived: figures.codesReceived,
      redeemed: figures.redeemed + served,
      reports: { acked: reports.acked, pending: reports.pending, dead: reports.dead },
      refundsApplied: figures.refundsApplied,
      lastEventAt: connection.lastEventAt,
      reportLagSeconds: reports.lagSeconds,
    };
  }

  async retryDead(id: string, actor: RequestActor): Promise<{ message: string; requeued: number }> {
    await this.require(id);
    const rows = await this.reports.retryDead(id);
    for (const row of rows) this.jobs.add(SEND_MARKETPLACE_REPORT, { reportId: row.id, attempt: row.attempts });
    await this.events.publish('marketplace.retry-dead', {
      ...actor,
      success: true,
      resource: 'marketplace',
      resourceId: id,
      details: { requeued: rows.length },
    });
    return { message: MARKETPLACE_MESSAGES.retried(rows.length), requeued: rows.length };
  }

  private async require(id: string): Promise<ConnectionView> {
    const connection = await this.connections.find(id);
    if (!connection) throw new NotFoundException(MARKETPLACE_MESSAGES.notFound);
    return connection;
  }

  /**
   * The URL is checked (https, public address after DNS) before anything is written. An AppSumo connection is never
   * called: its URL is not resolved, and its switches that would call it stay off.
   */
  private async settingsOf(
    dto: UpdateMarketplaceDto,
    adapter: AdapterKind,
    checkUrl = true,
  ): Promise<ConnectionSettings> {
    const pull = dto.pullIntervalSeconds ?? 0;
    if (pull > 0 && pull < MIN_PULL_SECONDS) throw new BadRequestException(MARKETPLACE_MESSAGES.pullInterval);
    if (adapter === 'appsumo') {
      if (dto.checkAtRedeem || dto.reportRedemptions || pull > 0) {
        throw new BadRequestException(APPSUMO_MESSAGES.onlyWebhooks);
      }
      return {
        name: dto.name!,
        baseUrl: dto.baseUrl ?? APPSUMO_BASE_URL,
        checkAtRedeem: false,
        reportRedemptions: false,
        onUnreachable: dto.onUnreachable ?? 'accept',
        pullIntervalSeconds: 0,
      };
    }
    if (!dto.baseUrl) throw new BadRequestException(MARKETPLACE_MESSAGES.baseUrlRequired);
    if (checkUrl) {
      try {
        await resolveWebhookTarget(dto.baseUrl!, this.policy);
      } catch (err) {
        if (err instanceof WebhookUrlError) {
          throw new BadRequestException(err.message.replace(/webhook URL/g, 'marketplace base URL'));
        }
        throw err;
      }
    }
    return {
      name: dto.name!,
      baseUrl: dto.baseUrl!,
      checkAtRedeem: dto.checkAtRedeem ?? false,
      reportRedemptions: dto.reportRedemptions ?? true,
      onUnreachable: dto.onUnreachable ?? 'accept',
      pullIntervalSeconds: pull,
    };
  }

  private productsOf(products: ConnectedProduct[]): ConnectedProduct[] {
    const ids = new Set(products.map((p) => p.productId.toLowerCase()));
    const refs = new Set(products.map((p) => p.externalRef));
    if (ids.size !== products.length || refs.size !== products.length) {
      throw new BadRequestException(MARKETPLACE_MESSAGES.duplicateRef);
    }
    return products.map(({ productId, externalRef }) => ({ productId, externalRef }));
  }

  /** A product served by another connection (its primary key) → 409; an unknown product (its foreign key) → 400. */
  private async write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const pg = pgError(err);
      if (pg.code === '23505' && pg.constraint === 'pk_marketplace_products') {
        throw new ConflictException(MARKETPLACE_MESSAGES.productTaken);
      }
      if (pg.code === '23503' && pg.constraint === 'marketplace_products_product_id_fkey') {
        throw new BadRequestException(MARKETPLACE_MESSAGES.productNotFound);
      }
      throw err;
    }
  }
}
