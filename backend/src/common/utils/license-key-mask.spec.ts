import { maskLicenseKey } from './license-key-mask';

describe('licence key masking (docs/product.md §10.6)', () => {
  it('dash-separated keys keep their first and last groups', () => {
    expect(maskLicenseKey('ABCDE-FGHIJ-KLMNO-PQRST-UVWXY')).toBe('ABCDE-•••••-•••••-•••••-UVWXY');
    expect(maskLicenseKey('AB12-CD34-EF56')).toBe('AB12-••••-EF56');
  });

  it('other keys show their first and last 4 characters', () => {
    expect(maskLicenseKey('ABCDEFGHIJKL')).toBe('ABCD••••IJKL');
    expect(maskLicenseKey('ABCD1234')).toBe('ABCD1234');
    expect(maskLicenseKey('ABCDE-FGHIJ')).toBe('ABCD•••GHIJ');
  });

  it('keys shorter than 8 characters are not masked; null stays null', () => {
    expect(maskLicenseKey('ABC-123')).toBe('ABC-123');
    expect(maskLicenseKey(null)).toBeNull();
  });

  it('a manual key keeps its MANUAL_ prefix and the key behind it is masked', () => {
    expect(maskLicenseKey('MANUAL_AAAAA-BBBBB-CCCCC')).toBe('MANUAL_AAAAA-•••••-CCCCC');
  });
});
