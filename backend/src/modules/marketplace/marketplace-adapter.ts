import { answerJson, callMarketplace, MarketplaceCall } from './marketplace-http';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyMarketplaceSignature } from './marketplace-signature';

/** The inbound event types (docs/product.md §24.3). */
export const EVENT_TYPES = ['voucher.created', 'voucher.refunded', 'voucher.cancelled'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The live check's answers (docs/product.md §24.6). */
export const CHECK_STATUSES = ['valid', 'redeemed', 'refunded', 'cancelled', 'unknown'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** One inbound event as the service applies it, whatever the marketplace's own format. */
export interface InboundEvent {
  id: string;
  type: EventType;
  externalRef: string;
  codes: string[];
}

/** What is reported: a redemption (POST /redemptions) or its refund (POST /refunds). */
export interface OutboundReport {
  redemptionId: string;
  code: string;
  externalRef: string;
  redeemedAt: Date;
}

/** What the events of one request changed: codes applied, there already, or not of the product. */
export interface InboundOutcome {
  applied: number;
  duplicates: number;
  unknown: number;
}

/** A request's headers as Node gives them (lower-cased names). */
export type InboundHeaders = Record<string, string | string[] | undefined>;

export const header = (headers: InboundHeaders, name: string) => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * A marketplace's side of the protocol: verify and translate what it sends, and each call the service makes to it.
 * `GenericMarketplaceAdapter` is docs/product.md §24.2-§24.3 itself; an adapter for a named marketplace maps its own
 * format.
 */
export interface MarketplaceAdapter {
  /** The request is the marketplace's, signed with the connection's secret, and fresh. */
  verify(secret: string, headers: InboundHeaders, rawBody: Buffer, nowSeconds: number): boolean;
  /**
   * The parsed body as the events to apply (validated after, as the generic protocol's); none for a probe or an event
   * with nothing to do. `refs`: the connection's products' external references. Throws a 400 for a body it cannot read.
   */
  translate(body: unknown, refs: string[]): InboundEvent[];
  /** The answer to the marketplace, given what the events changed. */
  answer(body: unknown, outcome: InboundOutcome): object;
  check(call: MarketplaceCall, code: string, externalRef: string): Promise<CheckStatus>;
  /** Throws unless the marketplace acknowledged it (2xx). */
  report(call: MarketplaceCall, report: OutboundReport): Promise<void>;
  reportRefund(call: MarketplaceCall, report: OutboundReport): Promise<void>;
  pull(call: MarketplaceCall, cursor: string | null): Promise<{ events: unknown[]; cursor: string | null }>;
}

export class GenericMarketplaceAdapter implements MarketplaceAdapter {
  verify(secret: string, headers: InboundHeaders, rawBody: Buffer, nowSeconds: number): boolean {
    const ts = header(headers, TIMESTAMP_HEADER);
    const sig = header(headers, SIGNATURE_HEADER);
    return verifyMarketplaceSignature(secret, ts, sig, rawBody, nowSeconds);
  }

  translate(body: unknown): InboundEvent[] {
    return [body as InboundEvent];
  }

  answer(_body: unknown, outcome: InboundOutcome): InboundOutcome {
    return outcome;
  }

  async check(call: MarketplaceCall, code: string, externalRef: string): Promise<CheckStatus> {
    const answer = answerJson(
      await callMarketplace(call, 'POST', '/vouchers/check', JSON.stringify({ code, externalRef })),
    ) as { status?: unknown };
    if (!CHECK_STATUSES.includes(answer?.status as CheckStatus)) {
      throw new Error(`The marketplace answered an unknown status: ${String(answer?.status).slice(0, 40)}`);
    }
    return answer.status as CheckStatus;
  }

  async report(call: MarketplaceCall, r: OutboundReport): Promise<void> {
    const body = JSON.stringify({
      code: r.code,
      externalRef: r.externalRef,
      redeemedAt: r.redeemedAt.toISOString(),
      redemptionId: r.redemptionId,
    });
    acknowledged(await callMarketplace(call, 'POST', '/redemptions', body, { 'Idempotency-Key': r.redemptionId }));
  }

  async reportRefund(call: MarketplaceCall, r: OutboundReport): Promise<void> {
    const body = JSON.stringify({ redemptionId: r.redemptionId, code: r.code });
    acknowledged(
      await callMarketplace(call, 'POST', '/refunds', body, { 'Idempotency-Key': `refund-${r.redemptionId}` }),
    );
  }

  async pull(call: MarketplaceCall, cursor: string | null): Promise<{ events: unknown[]; cursor: string | null }> {
    const path = `/events?after=${encodeURIComponent(cursor ?? '')}`;
    const answer = answerJson(await callMarketplace(call, 'GET', path, '')) as { events?: unknown; cursor?: unknown };
    if (!Array.isArray(answer?.events)) throw new Error('The marketplace answered no list of events');
    const next = answer.cursor === undefined || answer.cursor === null ? null : String(answer.cursor);
    return { events: answer.events, cursor: next };
  }
}

export function acknowledged(answer: { status: number }): void {
  if (answer.status < 200 || answer.status > 299) throw new Error(`The marketplace answered ${answer.status}`);
}
