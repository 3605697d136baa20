import { Clock } from '../../common/clock';
import { JobKey } from '../jobs/job';
import { JobQueue } from '../jobs/job-queue';
import { POOL_CHECK_THROTTLE_MS, PoolChecks } from './pool-checks';
import { CHECK_POOL } from './pool.jobs';

/** The port, recording the pool checks added (the runtimes are covered by the e2e suites). */
class RecordingQueue extends JobQueue {
  readonly checks: Array<string | null> = [];
  add<P>(job: JobKey<P>, payload: P): void {
    if (job.name === CHECK_POOL.name) this.checks.push((payload as { productId: string | null }).productId);
  }
  pending(): Promise<number> {
    return Promise.resolve(0);
  }
}

describe('PoolChecks.notePoolUse', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('checks a product at once, then at most once a minute, with one check at the end of a busy minute', () => {
    const queue = new RecordingQueue();
    const pool = new PoolChecks(queue, new Clock());
    pool.notePoolUse('a');
    pool.notePoolUse('a');
    pool.notePoolUse('b');
    pool.notePoolUse('a');
    expect(queue.checks).toEqual(['a', 'b']);

    jest.advanceTimersByTime(POOL_CHECK_THROTTLE_MS - 1);
    expect(queue.checks).toEqual(['a', 'b']);
    jest.advanceTimersByTime(1);
    // The uses of `a` inside the minute are looked at once, when it ends; `b` had none.
    expect(queue.checks).toEqual(['a', 'b', 'a']);

    jest.advanceTimersByTime(10 * POOL_CHECK_THROTTLE_MS);
    expect(queue.checks).toEqual(['a', 'b', 'a']);
    pool.notePoolUse('b');
    expect(queue.checks).toEqual(['a', 'b', 'a', 'b']);
  });

  it('drops the pending end-of-minute checks on shutdown', () => {
    const queue = new RecordingQueue();
    const pool = new PoolChecks(queue, new Clock());
    pool.notePoolUse('a');
    pool.notePoolUse('a');
    pool.onApplicationShutdown();
    jest.advanceTimersByTime(2 * POOL_CHECK_THROTTLE_MS);
    expect(queue.checks).toEqual(['a']);
  });
});
