import { admit, verifiedEmail } from './admission';
import { claimAt, mapRole } from './oidc-client.service';

describe('single sign-on role mapping', () => {
  const roles = [
    { role: 'admin', value: 'it-admins' },
    { role: 'operator', value: 'ops' },
    { role: 'shop-manager', value: 'shop' },
  ];

  it('gives the highest role whose value the claim holds', () => {
    expect(mapRole({ groups: ['shop', 'ops', 'other'] }, { roleClaim: 'groups', roles })).toBe('operator');
    expect(mapRole({ groups: ['shop', 'it-admins'] }, { roleClaim: 'groups', roles })).toBe('admin');
    expect(mapRole({ groups: ['marketing'] }, { roleClaim: 'groups', roles })).toBeNull();
    expect(mapRole({}, { roleClaim: 'groups', roles })).toBeNull();
  });

  it('reads a single string value and a nested claim (Keycloak realm roles)', () => {
    expect(mapRole({ hd: 'shop' }, { roleClaim: 'hd', roles })).toBe('shop-manager');
    expect(mapRole({ realm_access: { roles: ['ops'] } }, { roleClaim: 'realm_access.roles', roles })).toBe('operator');
    // A claim whose name itself has a dot wins over the walk.
    expect(claimAt({ 'a.b': 1, a: { b: 2 } }, 'a.b')).toBe(1);
    expect(claimAt({ a: 'x' }, 'a.b')).toBeUndefined();
  });

  it('never matches on a value that merely contains the configured one', () => {
    expect(mapRole({ groups: ['ops-readonly', 'xit-admins'] }, { roleClaim: 'groups', roles })).toBeNull();
    expect(mapRole({ groups: 'it-admins ops' }, { roleClaim: 'groups', roles })).toBeNull();
  });
});

describe('single sign-on admission: identity claims only when verified, domains', () => {
  const rules = {
    roleClaim: 'email',
    roles: [{ role: 'admin', value: 'it@example.com' }],
    allowedDomains: [] as string[],
    trustUsernameClaims: false,
  };

  it('maps an e-mail only when the provider says email_verified: true', () => {
    expect(admit({ email: 'it@example.com', email_verified: true }, rules)).toEqual({ role: 'admin' });
    for (const email_verified of [false, 'true', 1, undefined, null]) {
      expect(admit({ email: 'it@example.com', email_verified }, rules)).toMatchObject({ refusal: 'unverified' });
    }
    expect(verifiedEmail({ email: 'It@Example.com', email_verified: true })).toBe('it@example.com');
    expect(verifiedEmail({ email: 'it@example.com', email_verified: 'true' })).toBeNull();
    expect(verifiedEmail({ email: 'not an address', email_verified: true })).toBeNull();
  });

  it('never maps a username claim the operator did not declare trusted', () => {
    const upn = { ...rules, roleClaim: 'upn', roles: [{ role: 'admin', value: 'it@example.com' }] };
    expect(admit({ upn: 'it@example.com' }, upn)).toMatchObject({ refusal: 'unverified' });
    expect(admit({ upn: 'it@example.com' }, { ...upn, trustUsernameClaims: true })).toEqual({ role: 'admin' });
  });

  it('with allowed domains, needs hd or the verified e-mail of one of them', () => {
    const groups = { ...rules, roleClaim: 'groups', roles: [{ role: 'operator', value: 'ops' }] };
    const limited = { ...groups, allowedDomains: ['example.com'] };
    expect(admit({ groups: ['ops'] }, groups)).toEqual({ role: 'operator' });
    expect(admit({ groups: ['ops'] }, limited)).toMatchObject({ refusal: 'domain' });
    expect(admit({ groups: ['ops'], hd: 'Example.com' }, limited)).toEqual({ role: 'operator' });
    expect(admit({ groups: ['ops'], email: 'a@example.com', email_verified: true }, limited)).toEqual({
      role: 'operator',
    });
    expect(admit({ groups: ['ops'], email: 'a@example.com', email_verified: false }, limited)).toMatchObject({
      refusal: 'domain',
    });
    // Only the address's own domain: not a sub-domain or a look-alike.
    expect(admit({ groups: ['ops'], email: 'a@evil-example.com', email_verified: true }, limited)).toMatchObject({
      refusal: 'domain',
    });
    expect(admit({ groups: ['ops'], email: 'a@example.com.evil.io', email_verified: true }, limited)).toMatchObject({
      refusal: 'domain',
    });
    expect(admit({ groups: ['none'], hd: 'example.com' }, limited)).toMatchObject({ refusal: 'no-role' });
  });
});
