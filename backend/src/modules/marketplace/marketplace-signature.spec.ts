import { createHmac } from 'crypto';
import { marketplaceSignature, signedHeaders, verifyMarketplaceSignature } from './marketplace-signature';

describe('marketplace signing (docs/product.md §24.2)', () => {
  const secret = 'mksec_test-secret';
  const body = '{"id":"evt_1","type":"voucher.created","externalRef":"SKU-1","codes":["ABC-123"]}';
  const now = 1_767_225_600;

  it('is sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(marketplaceSignature(secret, now, body)).toBe(`sha256=${expected}`);
    expect(marketplaceSignature(secret, now, Buffer.from(body))).toBe(`sha256=${expected}`);
    expect(signedHeaders(secret, now, body)).toEqual({
      'X-Timestamp': String(now),
      'X-Signature': `sha256=${expected}`,
    });
  });

  it('accepts the right signature within 300 s either way', () => {
    const sig = marketplaceSignature(secret, now, body);
    expect(verifyMarketplaceSignature(secret, String(now), sig, body, now)).toBe(true);
    expect(verifyMarketplaceSignature(secret, String(now), sig, body, now + 300)).toBe(true);
    expect(verifyMarketplaceSignature(secret, String(now), sig, body, now - 300)).toBe(true);
  });

  it('refuses a stale or future timestamp, a forged or missing signature, another body or secret', () => {
    const sig = marketplaceSignature(secret, now, body);
    expect(verifyMarketplaceSignature(secret, String(now), sig, body, now + 301)).toBe(false);
    expect(verifyMarketplaceSignature(secret, String(now), sig, body, now - 301)).toBe(false);
    expect(verifyMarketplaceSignature(secret, String(now), sig, `${body} `, now)).toBe(false);
    expect(verifyMarketplaceSignature('other', String(now), sig, body, now)).toBe(false);
    expect(verifyMarketplaceSignature(secret, String(now + 1), sig, body, now)).toBe(false);
    expect(verifyMarketplaceSignature(secret, undefined, sig, body, now)).toBe(false);
    expect(verifyMarketplaceSignature(secret, String(now), undefined, body, now)).toBe(false);
    expect(verifyMarketplaceSignature(secret, `${now}.5`, sig, body, now)).toBe(false);
    expect(verifyMarketplaceSignature(secret, String(now), sig.replace('sha256=', ''), body, now)).toBe(false);
    expect(verifyMarketplaceSignature(secret, String(now), `${sig.slice(0, -1)}0`, body, now)).toBe(false);
  });
});
