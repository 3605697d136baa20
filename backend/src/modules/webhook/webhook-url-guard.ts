import { lookup as dnsLookup } from 'dns/promises';
import { BlockList, isIP } from 'net';

/** Why a webhook URL is refused: the message is the 400's (registration) or the delivery's logged error. */
export class WebhookUrlError extends Error {}

export const WEBHOOK_URL_MESSAGES = {
  invalid: 'The webhook URL must be a valid https:// URL.',
  https: 'The webhook URL must start with https://.',
  credentials: 'The webhook URL must not contain a user name or password.',
  unresolvable: 'The host name of the webhook URL could not be resolved.',
  private: (address: string) =>
    `The webhook URL must point to a public address: ${address} is a private, loopback or link-local address.`,
} as const;

/** Addresses a webhook may never reach (SSRF): this host, private networks, link-local (cloud metadata), CGNAT… */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(net, bits, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isLoopbackAddress(address: string): boolean {
  const a = unmapped(address);
  return LOOPBACK.check(a.address, a.family);
}

export function isForbiddenAddress(address: string): boolean {
  const a = unmapped(address);
  return FORBIDDEN.check(a.address, a.family);
}

export interface WebhookUrlPolicy {
  /** NODE_ENV=test: http:// and loopback receivers are allowed (in-test servers). */
  allowLoopback: boolean;
}

export interface WebhookTarget {
  url: URL;
  /** The checked address the request connects to (no second DNS answer can swap it). */
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's form alone: https (http only for loopback in test mode, checked after resolving), no credentials. */
export function parseWebhookUrl(raw: string, policy: WebhookUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.invalid);
  }
  if (url.protocol !== 'https:' && !(policy.allowLoopback && url.protocol === 'http:')) {
    throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.https);
  }
  if (url.username || url.password) throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.credentials);
  return url;
}

/**
 * Resolves the URL's host and checks every address it resolves to: one forbidden address refuses the URL (a DNS
 * answer mixing a public and a private address must not reach the private one by chance). Checked at registration
 * and again at every delivery, which then connects to the address checked here.
 */
export async function resolveWebhookTarget(raw: string, policy: WebhookUrlPolicy, lookup: Lookup = systemLookup): Promise<WebhookTarget> {
  const url = parseWebhookUrl(raw, policy);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch {
      throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.unresolvable);
    }
    if (!addresses.length) throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.unresolvable);
  }
  for (const { address } of addresses) {
    const allowed = policy.allowLoopback && isLoopbackAddress(address);
    if (!allowed && isForbiddenAddress(address)) throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.private(address));
  }
  if (url.protocol === 'http:' && !addresses.every((a) => isLoopbackAddress(a.address))) {
    throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.https);
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
