import { Inject, Injectable, UnauthorizedException, UnprocessableEntityException } from '@nestjs/common';
import { createHash } from 'crypto';
import { Clock } from '../../common/clock';
import { dayIn } from '../../common/utils/day';
import { RequestActor } from '../../common/utils/request-actor';
import { createValidationPipe } from '../../common/validation';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { VoucherUploadService } from '../voucher/voucher-upload.service';
import { VoucherVoidService } from '../voucher/voucher-void.service';
import { MarketplaceEventDto } from './dto/marketplace.dto';
import { InboundHeaders } from './marketplace-adapter';
import { adapterFor } from './marketplace-adapters';
import { MarketplaceMetrics } from './marketplace-metrics';
import { MarketplaceReportRepository } from './marketplace-report.repository';
import { MarketplaceRepository } from './marketplace.repository';

export const INBOUND_MESSAGES = {
  invalidSignature: 'Invalid signature',
  unknownRef: 'Unknown externalRef: no product of this connection has it.',
} as const;

export interface EventOutcome {
  applied: number;
  duplicates: number;
  unknown: number;
}

/** A batch id per connection, product and day: every `voucher.created` of that day joins it (reconciliation). */
export function dayBatchId(connectionId: string, productId: string, day: string): string {
  const h = createHash('sha256').update(`marketplace-batch/${connectionId}/${productId}/${day}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Inbound events (docs/product.md §24.3), pushed or pulled: verified (a bad, missing or stale signature: 401, nothing
 * read further), validated, then applied once per event id. `voucher.created` loads the codes through the voucher
 * module's upload (one batch per connection, product and day); `voucher.refunded`/`voucher.cancelled` go through its
 * void (docs/product.md §19.3, §24.8: an unredeemed code is voided, a redeemed one refunded). Audited through the void
 * and upload rows and a `marketplace.refund` row.
 */
@Injectable()
export class MarketplaceInboundService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly connections: MarketplaceRepository,
    private readonly reports: MarketplaceReportRepository,
    private readonly uploads: VoucherUploadService,
    private readonly voids: VoucherVoidService,
    private readonly events: DomainEvents,
    private readonly metrics: MarketplaceMetrics,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A pushed request: verified before anything else is read. An unknown connection answers as a bad signature. */
  async receive(
    connectionId: string,
    headers: InboundHeaders,
    rawBody: Buffer | undefined,
    body: unknown,
    actor: RequestActor,
  ): Promise<object> {
    const connection = await this.connections.inboundOf(connectionId);
    const adapter = connection && adapterFor(connection.adapter);
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (!connection || !adapter || !rawBody || !adapter.verify(connection.secret, headers, rawBody, now)) {
      throw new UnauthorizedException(INBOUND_MESSAGES.invalidSignature);
    }
    const total: EventOutcome = { applied: 0, duplicates: 0, unknown: 0 };
    for (const event of adapter.translate(body, connection.refs)) {
      const outcome = await this.apply(connectionId, event, actor);
      total.applied += outcome.applied;
      total.duplicates += outcome.duplicates;
      total.unknown += outcome.unknown;
    }
    return adapter.answer(body, total);
  }

  /** One event, validated (400 with the first failing rule) and applied once per id. */
  async apply(connectionId: string, raw: unknown, actor: RequestActor): Promise<EventOutcome> {
    const event = (await this.validation.transform(raw, {
      type: 'body',
      metatype: MarketplaceEventDto,
      data: '',
    })) as MarketplaceEventDto;
    if (await this.connections.eventSeen(connectionId, event.id)) {
      return { applied: 0, duplicates: event.codes.length, unknown: 0 };
    }
    const productId = await this.connections.productFor(connectionId, event.externalRef);
    if (!productId) throw new UnprocessableEntityException(INBOUND_MESSAGES.unknownRef);
    const codes = [...new Set(event.codes)];
    let outcome: EventOutcome = { applied: 0, duplicates: 0, unknown: 0 };
    if (codes.length && event.type === 'voucher.created') {
      // The service's day (TZ), as the reconciliation's CSV of a day reads it.
      const day = dayIn(this.config.timeZone, this.clock.now());
      const { inserted, duplicates } = await this.uploads.addListed(
        productId,
        codes,
        { fileName: `marketplace ${event.externalRef} ${day}`, batchId: dayBatchId(connectionId, productId, day) },
        actor,
      );
      outcome = { applied: inserted, duplicates, unknown: 0 };
    } else if (codes.length) {
      // Refunds the marketplace sent itself are never reported back to it.
      await this.reports.insertRefunds(connectionId, codes, 'acked');
      const result = await this.voids.voidList(productId, codes, actor);
      outcome = {
        applied: result.voided + result.refundedAfterRedemption.length,
        duplicates: result.alreadyVoid,
        unknown: result.unknown,
      };
      await this.events.publish('marketplace.refund', {
        ...actor,
        success: true,
        resource: 'marketplace',
        resourceId: connectionId,
        details: {
          eventId: event.id,
          type: event.type,
          productId,
          voided: result.voided,
          refundedAfterRedemption: result.refundedAfterRedemption.length,
          alreadyVoid: result.alreadyVoid,
          unknown: result.unknown,
        },
      });
    }
    const created = event.type === 'voucher.created';
    const recorded = await this.connections.recordEvent(connectionId, event.id, event.type, {
      applied: outcome.applied,
      codesReceived: created ? outcome.applied : 0,
      refundsApplied: created ? 0 : outcome.applied,
    });
    if (recorded) this.metrics.events.inc({ type: event.type });
    return outcome;
  }
}
