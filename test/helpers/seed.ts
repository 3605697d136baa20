/**
 * Random test data comes from one seed per test file, so a failing run can be replayed with the same data: the seed
 * is TEST_SEED when set, else Jest's own (`--seed N`, which also orders the tests under `--randomize`). A failing
 * test prints it (test/jest/seeded-environment.js); docs/testing.md says how to replay. Names that keep concurrent
 * runs apart (databases, Redis prefixes) and secrets stay on crypto randomness: they are not test data.
 */
declare global {
  var __TEST_SEED__: number | undefined;
}

export const TEST_SEED: number = globalThis.__TEST_SEED__ ?? jest.getSeed();

// mulberry32: small, fast, and the same sequence for the same seed on every platform.
let state = TEST_SEED >>> 0;

/** The next number in [0, 1) of this file's sequence. */
export function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** An integer in [0, max). */
export const randomInt = (max: number): number => Math.floor(random() * max);

/** `bytes` random bytes as lower-case hex (what `randomBytes(bytes).toString('hex')` gave, from the seed). */
export const randomHex = (bytes: number): string =>
  Array.from({ length: bytes }, () => randomInt(256).toString(16).padStart(2, '0')).join('');

/** One element of a non-empty list. */
export const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)];
