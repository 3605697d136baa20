import type { Request } from 'express';
import { BlockList, isIP } from 'net';

/** The longest textual IP address (an IPv4-mapped IPv6 address); anything longer is not an address. */
export const MAX_IP_LENGTH = 45;

/**
 * The client address as Express sees it: `X-Forwarded-For` only counts when TRUST_PROXY allows it.
 * A value that is not an IP address (a forged header: too long, garbage) gives '' and is never stored.
 */
export function clientIp(req: Request): string {
  const raw = req.ip ?? req.socket.remoteAddress ?? '';
  return validIp(raw);
}

/**
 * The client address of a request Express does not see (the socket.io handshake), by Express's own TRUST_PROXY rule:
 * walking from the peer back through `X-Forwarded-For`, each hop that is trusted (a hop count, or an address in the
 * loopback/address/CIDR list) hands over to the one before it. Validated like clientIp.
 */
export function forwardedClientIp(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: false | number | string,
): string {
  const peer = remoteAddress ?? '';
  if (trustProxy === false) return validIp(peer);
  const forwarded = ([] as string[])
    .concat(forwardedFor ?? [])
    .join(',')
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  const hops = [peer, ...forwarded.reverse()];
  if (typeof trustProxy === 'number') return validIp(hops[Math.min(trustProxy, hops.length - 1)]);
  const trusted = trustedProxies(trustProxy);
  let i = 0;
  while (i < hops.length - 1 && inAddressList(trusted, hops[i])) i++;
  return validIp(hops[i]);
}

function trustedProxies(list: string): BlockList {
  const trusted = new BlockList();
  for (const entry of list.split(',').map((part) => part.trim())) {
    if (entry === 'loopback') {
      trusted.addSubnet('127.0.0.0', 8, 'ipv4');
      trusted.addAddress('::1', 'ipv6');
      continue;
    }
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(bits), family);
  }
  return trusted;
}

/** Whether `address` (validated like clientIp; IPv4-mapped IPv6 unwrapped) is in `list`. */
export function inAddressList(list: BlockList, address: string): boolean {
  const ip = validIp(address);
  if (!ip) return false;
  return list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** `raw` as a plain IP address (IPv4-mapped IPv6 unwrapped), or '' when it is not one. */
export function validIp(raw: string): string {
  if (!raw || raw.length > MAX_IP_LENGTH) return '';
  const ip = raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
  return isIP(ip) ? ip : '';
}

/**
 * The unit rate limits and guess blocks count against (docs/product.md §18.2): an IPv4 address as is, an IPv6
 * address by its /64 (one customer line usually gets a whole /64), written `2001:db8:0:1::/64`.
 * An invalid address gives 'invalid': forged values share one bucket instead of escaping the limits.
 */
export function addressGroup(ip: string): string {
  const valid = validIp(ip);
  if (!valid) return 'invalid';
  if (isIP(valid) === 4) return valid;
  return `${expandIpv6(valid)
    .slice(0, 4)
    .map((part) => part.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, each as 4 hex digits. */
function expandIpv6(ip: string): string[] {
  let address = ip.toLowerCase().split('%')[0];
  // An embedded IPv4 tail (::ffff:1.2.3.4 style) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    address = address.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((part) => part.padStart(4, '0'));
}
