import { Batcher } from './batcher';

/** A `run` whose batches are recorded and answered (or failed) when the test says so. */
function controlledRun() {
  const batches: Array<{ inputs: number[]; answer: () => void; fail: (err: Error) => void }> = [];
  const run = (inputs: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ inputs, answer: () => resolve(inputs.map((n) => `#${n}`)), fail: reject });
    });
  return { batches, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher', () => {
  it('runs the calls of one turn as one batch and answers each its own result, in order', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxBatch: 10, maxInFlight: 1 });
    const calls = [1, 2, 3].map((n) => batcher.call(n));
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1, 2, 3]]);
    batches[0].answer();
    await expect(Promise.all(calls)).resolves.toEqual(['#1', '#2', '#3']);
  });

  it('gathers the calls made while the batches in flight run into the next one', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxBatch: 10, maxInFlight: 1 });
    const first = batcher.call(1);
    await turn();
    const later = [2, 3].map((n) => batcher.call(n));
    await turn();
    await turn();
    // Still one batch in flight: the later calls wait for it.
    expect(batches.map((b) => b.inputs)).toEqual([[1]]);
    batches[0].answer();
    await expect(first).resolves.toBe('#1');
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3]]);
    batches[1].answer();
    await expect(Promise.all(later)).resolves.toEqual(['#2', '#3']);
  });

  it('splits a crowd into batches of at most maxBatch, running up to maxInFlight at once', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxBatch: 2, maxInFlight: 2 });
    const calls = [1, 2, 3, 4, 5].map((n) => batcher.call(n));
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    batches[1].answer();
    await turn();
    expect(batches.map((b) => b.inputs)).toEqual([[1, 2], [3, 4], [5]]);
    batches[0].answer();
    batches[2].answer();
    await expect(Promise.all(calls)).resolves.toEqual(['#1', '#2', '#3', '#4', '#5']);
  });

  it('fails every call of a failed batch with its error, and only those', async () => {
    const { batches, run } = controlledRun();
    const batcher = new Batcher(run, { maxBatch: 2, maxInFlight: 2 });
    const calls = [1, 2, 3].map((n) => batcher.call(n));
    await turn();
    batches[0].fail(new Error('connection lost'));
    batches[1].answer();
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'connection lost',
      'connection lost',
      '#3',
    ]);
  });
});
