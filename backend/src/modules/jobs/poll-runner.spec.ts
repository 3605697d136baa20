import { Logger } from '@nestjs/common';
import { PollRunner } from './poll-runner';

/** A poll whose runs end when the test says: each run's `end` and how many run at once. */
function controlledPoll(every: number) {
  const ends: Array<(err?: Error) => void> = [];
  let running = 0;
  let mostAtOnce = 0;
  return {
    poll: {
      name: 'test-poll',
      every,
      run: () =>
        new Promise<void>((resolve, reject) => {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          ends.push((err) => {
            running--;
            if (err) reject(err);
            else resolve();
          });
        }),
    },
    runs: () => ends.length,
    end: (n: number, err?: Error) => ends[n](err),
    mostAtOnce: () => mostAtOnce,
  };
}

describe('PollRunner', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('runs a poll `every` ms after the start, then `every` ms after each run ended, never two at once', async () => {
    const p = controlledPoll(200);
    const runner = new PollRunner([p.poll]);
    runner.start();
    await jest.advanceTimersByTimeAsync(199);
    expect(p.runs()).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(p.runs()).toBe(1);
    // A slow run: however long it takes, the next waits for it.
    await jest.advanceTimersByTimeAsync(1_000);
    expect(p.runs()).toBe(1);
    p.end(0);
    await jest.advanceTimersByTimeAsync(199);
    expect(p.runs()).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(p.runs()).toBe(2);
    expect(p.mostAtOnce()).toBe(1);
    p.end(1);
    await runner.stop();
  });

  it('goes on after runs that failed, saying so once until one succeeds', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const p = controlledPoll(50);
    const runner = new PollRunner([p.poll]);
    runner.start();
    await jest.advanceTimersByTimeAsync(50);
    p.end(0, new Error('database down'));
    await jest.advanceTimersByTimeAsync(50);
    p.end(1, new Error('database down'));
    await jest.advanceTimersByTimeAsync(50);
    expect(p.runs()).toBe(3);
    expect(warn.mock.calls).toEqual([['test-poll: database down (retrying)']]);
    p.end(2);
    await jest.advanceTimersByTimeAsync(0);
    expect(log.mock.calls).toEqual([['test-poll: running again']]);
    await runner.stop();
  });

  it('stop waits for the run under way and starts none after it', async () => {
    const p = controlledPoll(50);
    const runner = new PollRunner([p.poll]);
    runner.start();
    await jest.advanceTimersByTimeAsync(50);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    p.end(0);
    await stopping;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(p.runs()).toBe(1);
  });
});
