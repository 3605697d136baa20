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
