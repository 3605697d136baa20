import { passwordStrength, validateChangePassword } from './passwordStrength';

describe('password strength (docs/product.md §5.9: 5 criteria; weak under 3, medium 3, strong 4 or more)', () => {
  it.each([
    ['', 0, 'weak'],
    ['abc', 1, 'weak'],
    ['abcDEF', 2, 'weak'],
    ['abcDEF1', 3, 'medium'],
    ['abcdefghijkl', 2, 'weak'],
    ['abcdefghijK1', 4, 'strong'],
    ['abcDEF1!', 4, 'strong'],
    ['abcdefghiJK1!', 5, 'strong'],
    ['ABCDEFGHIJKL', 2, 'weak'],
    ['abcdefghijkL', 3, 'medium'],
  ] as const)('%j meets %i criteria: %s', (password, met, level) => {
    const strength = passwordStrength(password);
    expect(strength.met).toBe(met);
    expect(strength.level).toBe(level);
    expect(strength.criteria.filter((c) => c.met)).toHaveLength(met);
  });

  it('counts any non-alphanumeric character as special', () => {
    expect(passwordStrength('#').criteria.find((c) => c.id === 'special')?.met).toBe(true);
    expect(passwordStrength('a b').criteria.find((c) => c.id === 'special')?.met).toBe(true);
  });
});

describe('change password validation (docs/product.md §6.4 messages)', () => {
  const valid = { currentPassword: 'old', newPassword: 'N3w!Passw0rd#', confirmPassword: 'N3w!Passw0rd#' };

  it('accepts a policy-conform new password', () => {
    expect(validateChangePassword(valid)).toEqual({});
  });

  it('requires the current password', () => {
    expect(validateChangePassword({ ...valid, currentPassword: '' }).currentPassword).toBe(
      'Current password is required',
    );
  });

  it('asks for 12 characters first, then for the character classes', () => {
    expect(validateChangePassword({ ...valid, newPassword: 'Sh0rt!', confirmPassword: 'Sh0rt!' }).newPassword).toBe(
      'Password must be at least 12 characters',
    );
    for (const weak of ['alllowercase1!', 'ALLUPPERCASE1!', 'NoDigitsHere!!', 'NoSpecial1234', 'Hash#Only1234']) {
      // Hash#Only1234: only @$!%*?& count as the required special character.
      expect(validateChangePassword({ ...valid, newPassword: weak, confirmPassword: weak }).newPassword).toBe(
        'Password must contain uppercase, lowercase, number, and special character',
      );
    }
  });

  it('shows "Passwords don\'t match" on the confirmation', () => {
    expect(validateChangePassword({ ...valid, confirmPassword: 'different' })).toEqual({
      confirmPassword: "Passwords don't match",
    });
  });
});
