import type { NextFunction, Request, Response } from 'express';
import { untoldProxyWarning } from './untold-proxy';

describe('untoldProxyWarning', () => {
  const request = (peer: string, forwardedFor?: string) =>
    ({ socket: { remoteAddress: peer }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }) as Request;

  const warningsFor = (requests: Request[]): string[] => {
    const said: string[] = [];
    const middleware = untoldProxyWarning((message) => said.push(message));
    let passed = 0;
    const next: NextFunction = () => passed++;
    for (const req of requests) middleware(req, {} as Response, next);
    expect(passed).toBe(requests.length);
    return said;
  };

  it('warns once for forwarded requests from loopback or a private address', () => {
    for (const peer of ['127.0.0.1', '::ffff:10.1.2.3', '172.20.0.10', '192.168.1.4', '::1', 'fd00::5']) {
      const said = warningsFor([request(peer, '203.0.113.9'), request(peer, '198.51.100.7')]);
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`Requests from ${peer.replace('::ffff:', '')} carry X-Forwarded-For`);
    }
  });

  it('says nothing for a public peer, or without the header', () => {
    expect(warningsFor([request('203.0.113.5', '10.0.0.1'), request('2001:db8::1', '10.0.0.1')])).toEqual([]);
    expect(warningsFor([request('127.0.0.1'), request('10.0.0.2')])).toEqual([]);
    expect(warningsFor([request('not an address', '10.0.0.1')])).toEqual([]);
  });
});
