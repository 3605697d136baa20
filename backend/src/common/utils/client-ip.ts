import type { Request } from 'express';
import { isIP } from 'net';

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

/** `raw` as a plain IP address (IPv4-mapped IPv6 unwrapped), or '' when it is not one. */
export function validIp(raw: string): string {
  if (!raw || raw.length > MAX_IP_LENGTH) return '';
  const ip = raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
  return isIP(ip) ? ip : '';
}

/**
 * The unit rate limits and guess blocks count against (DECISIONS §12): an IPv4 address as is, an IPv6
 * address by its /64 (one customer line usually gets a whole /64), written `2001:db8:0:1::/64`.
 * An invalid address gives 'invalid': forged values share one bucket instead of escaping the limits.
 */
export function addressGroup(ip: string): string {
  const valid = validIp(ip);
  if (!valid) return 'invalid';
  if (isIP(valid) === 4) return valid;
  return `${expandIpv6(valid).slice(0, 4).map((part) => part.replace(/^0+(?=.)/, '')).join(':')}::/64`;
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
