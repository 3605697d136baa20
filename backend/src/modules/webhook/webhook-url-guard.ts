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
/** IPv6 ranges refused whole: NAT64 local-use (RFC 8215, the IPv4 part's place varies) and Teredo (RFC 4380). */
const FORBIDDEN_IPV6_RANGES = new BlockList();
FORBIDDEN_IPV6_RANGES.addSubnet('64:ff9b:1::', 48, 'ipv6');
FORBIDDEN_IPV6_RANGES.addSubnet('2001::', 32, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail and a zone id allowed). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, -v4[0].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((group) => parseInt(group, 16));
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that carry one and reach it: IPv4-compatible
 * (`::/96`, e.g. `::127.0.0.1`), IPv4-mapped (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), NAT64
 * (`64:ff9b::/96`) and 6to4 (`2002::/16`, the IPv4 address in bits 16–48). Null for any other address.
 */
export function embeddedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 6)) return dotted(g[6], g[7]);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(g[6], g[7]);
  if (g[0] === 0x2002) return dotted(g[1], g[2]);
  return null;
}

/** The address as judged: an IPv6 form carrying an IPv4 address is judged as that IPv4 address. */
function judged(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const v4 = embeddedIpv4(address);
  if (v4) return { address: v4, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isForbiddenAddress(address: string): boolean {
  const a = judged(address);
  if (a.family === 'ipv6' && FORBIDDEN_IPV6_RANGES.check(a.address, 'ipv6')) return true;
  return FORBIDDEN.check(a.address, a.family);
}

/**
 * WEBHOOK_ALLOW_INSECURE_TARGETS (never in production): the addresses and CIDRs a webhook may reach although they are
 * private or loopback, and over http:// (in-test receivers, a receiver on the operator's own network).
 */
export function insecureTargetList(entries: string[]): BlockList | null {
  if (!entries.length) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

export interface WebhookUrlPolicy {
  /** From WEBHOOK_ALLOW_INSECURE_TARGETS (see insecureTargetList); null: only public https receivers. */
  insecureTargets: BlockList | null;
}

function isInsecureTarget(address: string, policy: WebhookUrlPolicy): boolean {
  if (!policy.insecureTargets) return false;
  const a = judged(address);
  return (
    policy.insecureTargets.check(a.address, a.family) ||
    policy.insecureTargets.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')
  );
}

export interface WebhookTarget {
  url: URL;
  /** The checked address the request connects to (no second DNS answer can swap it). */
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's form alone: https (http only to WEBHOOK_ALLOW_INSECURE_TARGETS, checked after resolving), no credentials. */
export function parseWebhookUrl(raw: string, policy: WebhookUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.invalid);
  }
  if (url.protocol !== 'https:' && !(policy.insecureTargets && url.protocol === 'http:')) {
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
export async function resolveWebhookTarget(
  raw: string,
  policy: WebhookUrlPolicy,
  lookup: Lookup = systemLookup,
): Promise<WebhookTarget> {
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
    if (!isInsecureTarget(address, policy) && isForbiddenAddress(address)) {
      throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.private(address));
    }
  }
  if (url.protocol === 'http:' && !addresses.every((a) => isInsecureTarget(a.address, policy))) {
    throw new WebhookUrlError(WEBHOOK_URL_MESSAGES.https);
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
