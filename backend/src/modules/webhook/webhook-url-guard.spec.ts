import {
  embeddedIpv4,
  insecureTargetList,
  isForbiddenAddress,
  resolveWebhookTarget,
  WEBHOOK_URL_MESSAGES,
} from './webhook-url-guard';
import { signatureHeader, verifySignature } from './webhook-signature';

const production = { insecureTargets: null };
// WEBHOOK_ALLOW_INSECURE_TARGETS=127.0.0.1,::1 (what the e2e suites set for their in-test receivers).
const testMode = { insecureTargets: insecureTargetList(['127.0.0.1', '::1']) };
const dns = (answers: Record<string, string[]>) => async (host: string) =>
  (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook URL guard (SSRF)', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '192.168.0.10',
    '127.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
  ])('forbids %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows %s', (address) => expect(isForbiddenAddress(address)).toBe(false));

  // Every IPv6 form that carries (or translates to) an IPv4 address is judged as that address; Teredo and NAT64
  // local-use are refused whole.
  it.each([
    ['IPv4-compatible ::/96', ['::127.0.0.1', '::7f00:1', '::10.0.0.1', '::a9fe:a9fe', '0:0:0:0:0:0:192.168.1.1']],
    [
      'IPv4-mapped ::ffff:0:0/96',
      ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::FFFF:169.254.169.254', '::ffff:a00:1'],
    ],
    ['IPv4-translated ::ffff:0:0:0/96', ['::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '0:0:0:0:ffff:0:a00:1']],
    ['NAT64 64:ff9b::/96', ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::c0a8:101']],
    ['NAT64 local-use 64:ff9b:1::/48', ['64:ff9b:1::808:808', '64:ff9b:1:ffff::1']],
    ['6to4 2002::/16', ['2002:7f00:1::', '2002:a00:1::1', '2002:c0a8:101:1::1', '2002:a9fe:a9fe::']],
    ['Teredo 2001::/32', ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1', '2001:0:ffff::']],
  ])('forbids the %s forms of private addresses', (_form, addresses) => {
    for (const address of addresses) {
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: true });
    }
  });

  it('reads the IPv4 address out of each embedding form', () => {
    expect(embeddedIpv4('::7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:c0a8:101')).toBe('192.168.1.1');
    expect(embeddedIpv4('::ffff:0:a9fe:a9fe')).toBe('169.254.169.254');
    expect(embeddedIpv4('64:ff9b::a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:ac10:1::')).toBe('172.16.0.1');
    expect(embeddedIpv4('2606:4700:4700::1111')).toBeNull();
    expect(embeddedIpv4('10.0.0.1')).toBeNull();
  });

  it('refuses https://[::127.0.0.1]/ and the other bracketed forms at the URL level', async () => {
    for (const url of [
      'https://[::127.0.0.1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[64:ff9b::10.0.0.1]/',
      'https://[2002:a9fe:a9fe::]/',
    ]) {
      await expect(resolveWebhookTarget(url, production)).rejects.toThrow(/must point to a public address/);
    }
  });

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

  it('allows http and private receivers only at the addresses WEBHOOK_ALLOW_INSECURE_TARGETS lists, never http to a public one', async () => {
    const lookup = dns({ localhost: ['127.0.0.1'], 'public.example.com': ['93.184.216.34'] });
    await expect(resolveWebhookTarget('http://localhost:8080/x', testMode, lookup)).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    await expect(resolveWebhookTarget('http://localhost:8080/x', production, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.https,
    );
    await expect(resolveWebhookTarget('https://localhost/x', production, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.private('127.0.0.1'),
    );
    await expect(resolveWebhookTarget('http://public.example.com/x', testMode, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.https,
    );
    await expect(resolveWebhookTarget('https://10.0.0.1/x', testMode, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.private('10.0.0.1'),
    );
    await expect(resolveWebhookTarget('http://127.0.0.2/x', testMode, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.private('127.0.0.2'),
    );
    await expect(resolveWebhookTarget('http://[::1]:8080/x', testMode, lookup)).resolves.toMatchObject({
      address: '::1',
    });
    const lan = { insecureTargets: insecureTargetList(['10.20.0.0/16']) };
    await expect(resolveWebhookTarget('http://10.20.3.4/x', lan, lookup)).resolves.toMatchObject({
      address: '10.20.3.4',
    });
    await expect(resolveWebhookTarget('http://localhost:8080/x', lan, lookup)).rejects.toThrow(
      WEBHOOK_URL_MESSAGES.private('127.0.0.1'),
    );
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
