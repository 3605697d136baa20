import { addressGroup, forwardedClientIp, validIp } from './client-ip';

describe('validIp', () => {
  it('keeps real addresses and unwraps IPv4-mapped IPv6', () => {
    expect(validIp('203.0.113.7')).toBe('203.0.113.7');
    expect(validIp('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(validIp('2001:db8::1')).toBe('2001:db8::1');
  });

  it('gives "" for anything that is not an address, and for anything longer than 45 characters', () => {
    expect(validIp('')).toBe('');
    expect(validIp('not-an-ip')).toBe('');
    expect(validIp('1'.repeat(46))).toBe('');
    expect(validIp(`203.0.113.7${' '.repeat(40)}`)).toBe('');
  });
});

describe('addressGroup', () => {
  it('counts IPv4 per address and IPv6 per /64', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(addressGroup('2001:0db8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(addressGroup('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('::ffff:10.0.0.1')).toBe('10.0.0.1');
  });

  it('puts every invalid address in one bucket', () => {
    expect(addressGroup('x'.repeat(60))).toBe('invalid');
    expect(addressGroup('')).toBe('invalid');
  });
});

describe('forwardedClientIp (requests Express does not see: the socket.io handshake)', () => {
  it('believes X-Forwarded-For exactly as far as TRUST_PROXY says, like Express', () => {
    const xff = '198.51.100.9, 203.0.113.5';
    expect(forwardedClientIp('127.0.0.1', xff, false)).toBe('127.0.0.1');
    expect(forwardedClientIp('::ffff:127.0.0.1', undefined, false)).toBe('127.0.0.1');
    expect(forwardedClientIp('127.0.0.1', xff, 1)).toBe('203.0.113.5');
    expect(forwardedClientIp('127.0.0.1', xff, 2)).toBe('198.51.100.9');
    expect(forwardedClientIp('127.0.0.1', xff, 9)).toBe('198.51.100.9');
    expect(forwardedClientIp('127.0.0.1', xff, 'loopback')).toBe('203.0.113.5');
    expect(forwardedClientIp('127.0.0.1', xff, 'loopback,203.0.113.0/24')).toBe('198.51.100.9');
    // An untrusted peer's header counts for nothing.
    expect(forwardedClientIp('192.0.2.1', xff, 'loopback')).toBe('192.0.2.1');
    expect(forwardedClientIp('127.0.0.1', 'garbage', 'loopback')).toBe('');
  });
});
