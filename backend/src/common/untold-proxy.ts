import type { NextFunction, Request, Response } from 'express';
import { BlockList } from 'net';
import { inAddressList, validIp } from './utils/client-ip';

/** Where a proxy in front of the service connects from: loopback and the private ranges. */
const PROXY_PEERS = new BlockList();
PROXY_PEERS.addSubnet('127.0.0.0', 8, 'ipv4');
PROXY_PEERS.addSubnet('10.0.0.0', 8, 'ipv4');
PROXY_PEERS.addSubnet('172.16.0.0', 12, 'ipv4');
PROXY_PEERS.addSubnet('192.168.0.0', 16, 'ipv4');
PROXY_PEERS.addAddress('::1', 'ipv6');
PROXY_PEERS.addSubnet('fc00::', 7, 'ipv6');

/**
 * Mounted while TRUST_PROXY is unset (docs/product.md §18.3). A request from loopback or a private address that
 * carries `X-Forwarded-For` most likely came through a proxy the service was not told about: every customer then has
 * the proxy's address, and the guessing block and the rate limits, which count by address, make one customer's
 * mistyped codes everyone's. Said once per process, as a warning with the fix; the request goes on unchanged.
 */
export function untoldProxyWarning(warn: (message: string) => void) {
  let warned = false;
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!warned && req.headers['x-forwarded-for'] !== undefined) {
      const peer = validIp(req.socket.remoteAddress ?? '');
      if (inAddressList(PROXY_PEERS, peer)) {
        warned = true;
        warn(
          `Requests from ${peer} carry X-Forwarded-For, but TRUST_PROXY is not set: every client behind that proxy ` +
            `counts as ${peer} for the rate limits and the code-guessing block. Set TRUST_PROXY to the proxy's ` +
            'address (or loopback, or the number of proxies in front of the service).',
        );
      }
    }
    next();
  };
}
