import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'crypto';
import { promisify } from 'util';

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: string,
  keylen: number,
  options: object,
) => Promise<Buffer>;

/*
 * scrypt with N=2^14, r=8, p=5: one of OWASP's equivalent minimum settings for scrypt (the same work as
 * N=2^17, r=8, p=1) at 16 MiB of memory per hash instead of 128 MiB, so a burst of logins (every attempt,
 * even for an unknown user, costs one hash) cannot exhaust the server's memory.
 * The hash column stores `scrypt$N$r$p$<base64 key>` so parameters can change later and old hashes still
 * verify; the salt has its own column (docs/product.md §4.6, max 32 characters).
 */
let PARAMS = { N: 2 ** 14, r: 8, p: 5, maxmem: 256 * 1024 * 1024 };
const KEY_LENGTH = 64;

/**
 * For the test suites only (test/jest/password-cost.ts): the hashes this process makes from now on cost scrypt
 * N=2^10, r=8, p=1, an eightieth of the work. A sign-in in a test checks its lockouts, audits and answers, not the
 * cost, and the hashes took a quarter of the API suite's CPU. No setting reaches this; a hash records its own
 * parameters, so hashes of either cost verify.
 */
export function usePasswordTestCost(): void {
  PARAMS = { ...PARAMS, N: 2 ** 10, p: 1 };
}

export interface PasswordHash {
  hash: string;
  salt: string;
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16).toString('hex');
  const key = await scrypt(password, salt, KEY_LENGTH, PARAMS);
  return { hash: `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${key.toString('base64')}`, salt };
}

/**
 * A hash no password matches (its key is random bytes), at the cost of a real one: checking a password against it
 * takes as long as against an account's. Made without hashing, so it costs nothing to hold one.
 */
export function unmatchableHash(): PasswordHash {
  const key = randomBytes(KEY_LENGTH).toString('base64');
  return { hash: `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${key}`, salt: randomBytes(16).toString('hex') };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const [scheme, n, r, p, encoded] = stored.hash.split('$');
  if (scheme !== 'scrypt' || !encoded) return false;
  const expected = Buffer.from(encoded, 'base64');
  const key = await scrypt(password, stored.salt, expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A random password that meets the password policy (docs/product.md §6.4: upper, lower, digit, one of @$!%*?&), 20 characters. */
export function generatePassword(length = 20): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '@$!%*?&'];
  const all = sets.join('');
  const pick = (chars: string) => chars[randomBytes(1)[0] % chars.length];
  const chars = sets.map(pick);
  while (chars.length < length) chars.push(pick(all));
  // Fisher-Yates with crypto randomness so the guaranteed characters are not always first.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBytes(1)[0] % (i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}
