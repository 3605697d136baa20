import { randomBytes } from 'crypto';
import { DataCipher } from './data-cipher';

describe('DataCipher', () => {
  const key = randomBytes(32);

  it('seals with a fresh nonce each time and opens again', () => {
    const cipher = new DataCipher(key);
    const a = cipher.seal('ABCDE-12345');
    const b = cipher.seal('ABCDE-12345');
    expect(a.equals(b)).toBe(false);
    expect(a.toString('latin1')).not.toContain('ABCDE');
    expect(cipher.open(a)).toBe('ABCDE-12345');
    expect(cipher.hash('ABCDE-12345').equals(cipher.hash('ABCDE-12345'))).toBe(true);
  });

  it('refuses a tampered value and one under an unknown key', () => {
    const cipher = new DataCipher(key);
    const sealed = cipher.seal('ABCDE-12345');
    sealed[sealed.length - 20] ^= 1;
    expect(() => cipher.open(sealed)).toThrow();
    expect(() => new DataCipher(randomBytes(32)).open(cipher.seal('X'))).toThrow(/unknown data key/);
  });

  it('opens values under the previous key while rotating; hashes differ per key', () => {
    const next = randomBytes(32);
    const old = new DataCipher(key);
    const rotating = new DataCipher(next, key);
    const sealed = old.seal('ABCDE-12345');
    expect(rotating.isCurrent(sealed)).toBe(false);
    expect(rotating.open(sealed)).toBe('ABCDE-12345');
    expect(rotating.isCurrent(rotating.seal('x'))).toBe(true);
    // Rotated: what the previous key sealed; never what the current key or a third key sealed.
    expect(rotating.isRotatable(sealed)).toBe(true);
    expect(rotating.isRotatable(rotating.seal('x'))).toBe(false);
    expect(rotating.isRotatable(new DataCipher(randomBytes(32)).seal('x'))).toBe(false);
    expect(old.isRotatable(sealed)).toBe(false);
    expect(rotating.seal('x').subarray(1, 5).equals(rotating.currentKeyId)).toBe(true);
    expect(rotating.previousHash('ABCDE-12345')!.equals(old.hash('ABCDE-12345'))).toBe(true);
    expect(rotating.hash('ABCDE-12345').equals(old.hash('ABCDE-12345'))).toBe(false);
  });
});
