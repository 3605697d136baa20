import { isForbiddenAddress, resolveWebhookTarget, WEBHOOK_URL_MESSAGES } from './webhook-url-guard';
import { signatureHeader, verifySignature } from './webhook-signature';

const production = { allowLoopback: false };
const testMode = { allowLoopback: true };
const dns = (answers: Record<string, string[]>) => async (host: string) =>
  (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook URL guard (SSRF)', () => {
  it.each(['10.1.2.3', '172.16.0.1', '192.168.0.10', '127.0.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1'])(
    'forbids %s',
    (address) => expect(isForbiddenAddress(address)).toBe(true),
  );

  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isForbiddenAddress(address)).toBe(false),
  );

  it('connects to the address it checked, and refuses a name with any private address among its answers', async () => {
    const lookup = dns({ 'hooks.example.com': ['93.184.216.34'], 'mixed.example.com': ['93.184.216.34', '10.0.0.7'] });
    await expect(resolveWebhookTarget('https://hooks.example.com/x', production, lookup)).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(resolveWebhookTarget('https://mixed.example.com/x', production, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.private('10.0.0.7'),
    );
    await expect(resolveWebhookTarget('https://nowhere.example.com/x', production, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.unresolvable,
    );
  });

  it('allows http and loopback in test mode only, and never http to a public address', async () => {
    const lookup = dns({ localhost: ['127.0.0.1'], 'public.example.com': ['93.184.216.34'] });
    await expect(resolveWebhookTarget('http://localhost:8080/x', testMode, lookup)).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(resolveWebhookTarget('http://localhost:8080/x', production, lookup)).rejects.toThrow(WEBHOOK_URL_MESSAGES.https);
    await expect(resolveWebhookTarget('https://localhost/x', production, lookup)).rejects.toThrow(WEBHOOK_URL_MESSAGES.private('127.0.0.1'));
    await expect(resolveWebhookTarget('http://public.example.com/x', testMode, lookup)).rejects.toThrow(WEBHOOK_URL_MESSAGES.https);
    await expect(resolveWebhookTarget('https://10.0.0.1/x', testMode, lookup)).rejects.toThrow(WEBHOOK_URL_MESSAGES.private('10.0.0.1'));
  });
});

describe('webhook signature', () => {
  it('verifies with the secret within the tolerance and nothing else', () => {
    const body = '{"event":"pool.low"}';
    const header = signatureHeader('whsec_a', 1_700_000_000, body);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_a', header, body, 1_700_000_100)).toBe(true);
    expect(verifySignature('whsec_b', header, body, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_a', header, body + ' ', 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_a', header, body, 1_700_001_000)).toBe(false);
  });
});
