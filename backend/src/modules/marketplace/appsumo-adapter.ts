import { BadRequestException } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'crypto';
import type { MarketplaceCall } from './marketplace-http';
import {
  CheckStatus,
  header,
  InboundEvent,
  InboundHeaders,
  InboundOutcome,
  MarketplaceAdapter,
} from './marketplace-adapter';
import { SIGNATURE_TOLERANCE_SECONDS } from './marketplace-signature';

/** AppSumo's signing headers (docs/marketplaces.md, "AppSumo"). */
export const APPSUMO_TIMESTAMP_HEADER = 'X-Appsumo-Timestamp';
export const APPSUMO_SIGNATURE_HEADER = 'X-Appsumo-Signature';

/** The address an AppSumo connection is listed with: it is never called (AppSumo only pushes). */
export const APPSUMO_BASE_URL = 'https://api.licensing.appsumo.com';

export const APPSUMO_MESSAGES = {
  unreadable: 'An AppSumo webhook carries an event and a license_key.',
  onlyWebhooks:
    'An AppSumo connection only receives webhooks: checkAtRedeem, reportRedemptions and pullIntervalSeconds stay off.',
  apiKeyRequired: 'The API key is required.',
  apiKeyGeneric: 'Only an AppSumo connection takes an API key.',
} as const;

/** The AppSumo events that change something here; the others (activate, upgrade, downgrade, migrate) are answered. */
const APPLIED = { purchase: 'voucher.created', deactivate: 'voucher.refunded' } as const;

/** `hex(HMAC-SHA256(apiKey, "<X-Appsumo-Timestamp><raw body>"))`, as AppSumo signs its webhooks. */
export function appsumoSignature(apiKey: string, timestamp: string, rawBody: string | Buffer): string {
  return createHmac('sha256', apiKey).update(timestamp).update(rawBody).digest('hex');
}

/** AppSumo's timestamp is in milliseconds; one of 10 digits or fewer is read as seconds. */
function timestampSeconds(timestamp: string): number {
  const n = Number(timestamp);
  return timestamp.length > 11 ? n / 1000 : n;
}

interface AppsumoWebhook {
  event: string;
  license_key: string;
  plan_id?: string;
  event_timestamp?: number;
  test?: boolean;
}

function readWebhook(body: unknown): AppsumoWebhook {
  const b = body as Partial<AppsumoWebhook> | null;
  if (!b || typeof b !== 'object' || typeof b.event !== 'string' || typeof b.license_key !== 'string') {
    throw new BadRequestException(APPSUMO_MESSAGES.unreadable);
  }
  return b as AppsumoWebhook;
}

/**
 * AppSumo's licensing webhooks (docs/product.md §24.4, docs/marketplaces.md "AppSumo"), built from AppSumo's public
 * documentation: signed with the partner's API key over the timestamp and the body, fresh within 300 s; `purchase`
 * brings its `license_key` in as a code of the product whose external reference is the `plan_id` (the only product
 * when the webhook names no plan), `deactivate` refunds it (§24.8); a `test: true` probe and the other events are
 * answered `{success: true, event}` and change nothing. AppSumo is never called: no check, report or pull.
 */
export class AppsumoAdapter implements MarketplaceAdapter {
  verify(apiKey: string, headers: InboundHeaders, rawBody: Buffer, nowSeconds: number): boolean {
    const ts = header(headers, APPSUMO_TIMESTAMP_HEADER);
    const sig = header(headers, APPSUMO_SIGNATURE_HEADER)?.trim().toLowerCase();
    if (!ts || !sig || !/^\d{1,16}$/.test(ts)) return false;
    if (Math.abs(nowSeconds - timestampSeconds(ts)) > SIGNATURE_TOLERANCE_SECONDS) return false;
    const expected = Buffer.from(appsumoSignature(apiKey, ts, rawBody), 'utf8');
    const given = Buffer.from(sig, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  translate(body: unknown, refs: string[]): InboundEvent[] {
    const webhook = readWebhook(body);
    const type = APPLIED[webhook.event as keyof typeof APPLIED];
    if (webhook.test === true || !type) return [];
    const ref =
      typeof webhook.plan_id === 'string' && webhook.plan_id ? webhook.plan_id : refs.length === 1 ? refs[0] : '';
    return [
      {
        id: `appsumo:${webhook.event}:${webhook.license_key}:${String(webhook.event_timestamp ?? '')}`.slice(0, 200),
        type,
        externalRef: ref,
        codes: [webhook.license_key],
      },
    ];
  }

  answer(body: unknown, outcome: InboundOutcome): object {
    return { success: true, event: readWebhook(body).event, ...outcome };
  }

  check(): Promise<CheckStatus> {
    return Promise.reject(new Error('AppSumo has no live check'));
  }

  report(): Promise<void> {
    return Promise.reject(new Error('AppSumo takes no redemption reports'));
  }

  reportRefund(): Promise<void> {
    return Promise.reject(new Error('AppSumo takes no refund reports'));
  }

  pull(_call: MarketplaceCall): Promise<{ events: unknown[]; cursor: string | null }> {
    return Promise.reject(new Error('AppSumo is not pulled'));
  }
}
