import { randomToken } from './random-token';

describe('randomToken', () => {
  it('answers base64url tokens of the asked length, never the same twice across pool refills', () => {
    const tokens = Array.from({ length: 1000 }, () => randomToken(32));
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(1000);
    expect(Buffer.from(randomToken(16), 'base64url')).toHaveLength(16);
    expect(Buffer.from(randomToken(5000), 'base64url')).toHaveLength(5000);
  });
});
