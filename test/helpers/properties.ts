import fc from 'fast-check';
import { TEST_SEED } from './seed';

/**
 * `property` checked on `numRuns` cases drawn by fast-check from the file's test seed (test/helpers/seed.ts): the run
 * that failed is replayed by the replay command a failing test prints (docs/testing.md), and fast-check's report gives
 * the smallest failing case it shrank to.
 */
export function checkProperty<T>(property: fc.IAsyncProperty<T> | fc.IProperty<T>, numRuns: number) {
  return fc.assert(property as fc.IAsyncProperty<T>, { seed: TEST_SEED | 0, numRuns });
}
