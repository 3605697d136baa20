import { JobQueue, POOL_CHECK_THROTTLE_MS } from './job-queue';

class RecordingQueue extends JobQueue {
  readonly checks: Array<string | null> = [];
  enqueueRedemptionMail(): void {}
  enqueuePoolAlert(): void {}
  enqueueCustomerLink(): void {}
  enqueuePoolCheck(productId: string | null): void {
    this.checks.push(productId);
  }
  pendingMailJobs(): Promise<number> {
    return Promise.resolve(0);
  }
  enqueueWebhookDelivery(): void {}
  pendingWebhookJobs(): Promise<number> {
    return Promise.resolve(0);
  }
  stop(): void {
    this.stopPoolChecks();
  }
}

describe('JobQueue.notePoolUse', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('checks a product at once, then at most once a minute, with one check at the end of a busy minute', () => {
    const queue = new RecordingQueue();
    queue.notePoolUse('a');
    queue.notePoolUse('a');
    queue.notePoolUse('b');
    queue.notePoolUse('a');
    expect(queue.checks).toEqual(['a', 'b']);

    jest.advanceTimersByTime(POOL_CHECK_THROTTLE_MS - 1);
    expect(queue.checks).toEqual(['a', 'b']);
    jest.advanceTimersByTime(1);
    // The uses of `a` inside the minute are looked at once, when it ends; `b` had none.
    expect(queue.checks).toEqual(['a', 'b', 'a']);

    jest.advanceTimersByTime(10 * POOL_CHECK_THROTTLE_MS);
    expect(queue.checks).toEqual(['a', 'b', 'a']);
    queue.notePoolUse('b');
    expect(queue.checks).toEqual(['a', 'b', 'a', 'b']);
  });

  it('drops the pending end-of-minute checks on shutdown', () => {
    const queue = new RecordingQueue();
    queue.notePoolUse('a');
    queue.notePoolUse('a');
    queue.stop();
    jest.advanceTimersByTime(2 * POOL_CHECK_THROTTLE_MS);
    expect(queue.checks).toEqual(['a']);
  });
});
