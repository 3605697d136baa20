import { createHmac } from 'crypto';
import { AppsumoAdapter, appsumoSignature } from './appsumo-adapter';

describe('the AppSumo adapter (docs/product.md §24.4)', () => {
  const adapter = new AppsumoAdapter();
  const apiKey = 'appsumo-api-key-example';
  // docs/marketplaces.md "AppSumo", worked example.
  const body =
    '{"license_key":"3794577c-3dbc-11ec-9bbc-0242ac130002","plan_id":"REF-OFFICE-HB-MAC","event":"purchase",' +
    '"license_status":"inactive","event_timestamp":1767225600000,"created_at":1767225600,"test":false}';
  const ts = '1767225600123';
  const now = 1_767_225_600;
  const headers = (timestamp: string, signature: string) => ({
    'x-appsumo-timestamp': timestamp,
    'x-appsumo-signature': signature,
  });

  it('signs hex HMAC-SHA256(apiKey, "<timestamp><raw body>"), as the worked example of docs/marketplaces.md', () => {
    expect(appsumoSignature(apiKey, ts, body)).toBe('f3dd1c8ff4f407cd86d042c48c51493e2efdc85ad6d854da1f2a2f97185a2b64');
    expect(appsumoSignature(apiKey, ts, body)).toBe(
      createHmac('sha256', apiKey)
        .update(ts + body)
        .digest('hex'),
    );
  });

  it('verifies a timestamp in milliseconds or seconds within 300 s, and nothing else', () => {
    const raw = Buffer.from(body);
    const sig = appsumoSignature(apiKey, ts, body);
    expect(adapter.verify(apiKey, headers(ts, sig), raw, now)).toBe(true);
    expect(adapter.verify(apiKey, headers(ts, sig.toUpperCase()), raw, now + 300)).toBe(true);
    expect(adapter.verify(apiKey, headers(String(now), appsumoSignature(apiKey, String(now), body)), raw, now)).toBe(
      true,
    );
    expect(adapter.verify(apiKey, headers(ts, sig), raw, now + 301)).toBe(false);
    expect(adapter.verify(apiKey, headers(ts, sig), raw, now - 300)).toBe(false);
    expect(adapter.verify('another-key', headers(ts, sig), raw, now)).toBe(false);
    expect(adapter.verify(apiKey, headers(ts, sig), Buffer.from(`${body} `), now)).toBe(false);
    expect(adapter.verify(apiKey, headers(`${ts}0`, sig), raw, now)).toBe(false);
    expect(adapter.verify(apiKey, headers(ts, `sha256=${sig}`), raw, now)).toBe(false);
    expect(adapter.verify(apiKey, { 'x-appsumo-timestamp': ts }, raw, now)).toBe(false);
  });

  it('translates purchase and deactivate; a probe and the other events are nothing to apply', () => {
    const webhook = JSON.parse(body) as Record<string, unknown>;
    expect(adapter.translate(webhook, ['REF-OFFICE-HB-MAC'])).toEqual([
      {
        id: 'appsumo:purchase:3794577c-3dbc-11ec-9bbc-0242ac130002:1767225600000',
        type: 'voucher.created',
        externalRef: 'REF-OFFICE-HB-MAC',
        codes: ['3794577c-3dbc-11ec-9bbc-0242ac130002'],
      },
    ]);
    const deactivate: Record<string, unknown> = { ...webhook, event: 'deactivate' };
    const { plan_id: _plan, ...noPlan } = deactivate;
    expect(adapter.translate(noPlan, ['ONLY-REF'])).toEqual([
      expect.objectContaining({ type: 'voucher.refunded', externalRef: 'ONLY-REF' }),
    ]);
    expect(adapter.translate(noPlan, ['ONE', 'TWO'])).toEqual([expect.objectContaining({ externalRef: '' })]);
    expect(adapter.translate({ ...webhook, test: true }, ['REF-OFFICE-HB-MAC'])).toEqual([]);
    for (const event of ['activate', 'upgrade', 'downgrade', 'migrate']) {
      expect(adapter.translate({ ...webhook, event }, ['REF-OFFICE-HB-MAC'])).toEqual([]);
    }
    expect(() => adapter.translate({ event: 'purchase' }, [])).toThrow(
      'An AppSumo webhook carries an event and a license_key.',
    );
    expect(adapter.answer(webhook, { applied: 1, duplicates: 0, unknown: 0 })).toEqual({
      success: true,
      event: 'purchase',
      applied: 1,
      duplicates: 0,
      unknown: 0,
    });
  });
});
