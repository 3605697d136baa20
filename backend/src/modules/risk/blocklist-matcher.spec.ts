import { BlocklistEntry, BlocklistMatcher } from './risk-rules';

const entries: BlocklistEntry[] = [
  { id: '1', kind: 'email', value: 'bad@example.com' },
  { id: '2', kind: 'domain', value: 'spam.example' },
  { id: '3', kind: 'phone', value: '+441632960961' },
  { id: '4', kind: 'address', value: '203.0.113.0/24' },
  { id: '5', kind: 'address', value: '2001:db8::/48' },
  { id: '6', kind: 'address', value: '198.51.100.7/32' },
];
const matcher = new BlocklistMatcher(entries);
const probe = (p: Partial<Parameters<BlocklistMatcher['match']>[0]>) =>
  matcher.match({ email: 'ok@ok.example', domain: 'ok.example', ip: null, phone: null, ...p }).map((e) => e.id);

describe('BlocklistMatcher', () => {
  it('matches e-mails, domains and phones by value only', () => {
    expect(probe({})).toEqual([]);
    expect(probe({ email: 'bad@example.com', domain: 'example.com' })).toEqual(['1']);
    expect(probe({ email: 'x@spam.example', domain: 'spam.example' })).toEqual(['2']);
    expect(probe({ email: 'x@sub.spam.example', domain: 'sub.spam.example' })).toEqual([]);
    expect(probe({ phone: '+441632960961' })).toEqual(['3']);
    expect(probe({ phone: '+441632960962' })).toEqual([]);
  });

  it('matches an address inside an entry network, of its own family, and a single address exactly', () => {
    expect(probe({ ip: '203.0.113.200' })).toEqual(['4']);
    expect(probe({ ip: '203.0.114.1' })).toEqual([]);
    expect(probe({ ip: '2001:db8:0:ffff::1' })).toEqual(['5']);
    expect(probe({ ip: '2001:db9::1' })).toEqual([]);
    expect(probe({ ip: '198.51.100.7' })).toEqual(['6']);
    expect(probe({ ip: '198.51.100.8' })).toEqual([]);
    expect(probe({ ip: 'not an address' })).toEqual([]);
  });

  it('answers every entry a redemption matches', () => {
    expect(probe({ email: 'bad@example.com', ip: '203.0.113.1', phone: '+441632960961' })).toEqual(['1', '3', '4']);
  });
});
