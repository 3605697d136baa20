import { ServiceUnavailableException } from '@nestjs/common';
import { BULK_BUSY_MESSAGE, BulkLimiter } from './bulk-limiter';

describe('BulkLimiter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('lets `max` holders in, hands a released slot to the next waiter', async () => {
    const limiter = new BulkLimiter(2, 1000);
    const first = await limiter.acquire();
    await limiter.acquire();
    let third = false;
    const waiting = limiter.acquire().then((release) => ((third = true), release));
    await Promise.resolve();
    expect(third).toBe(false);
    first();
    first(); // a second call changes nothing
    await waiting;
    expect(third).toBe(true);
    // Still two holders: a fourth caller waits and is refused after waitMs.
    const fourth = limiter.acquire();
    jest.advanceTimersByTime(1000);
    await expect(fourth).rejects.toThrow(new ServiceUnavailableException(BULK_BUSY_MESSAGE));
  });

  it('frees the slot of a waiter that gave up', async () => {
    const limiter = new BulkLimiter(1, 100);
    const release = await limiter.acquire();
    const refused = limiter.acquire();
    jest.advanceTimersByTime(100);
    await expect(refused).rejects.toBeInstanceOf(ServiceUnavailableException);
    release();
    await expect(limiter.acquire()).resolves.toEqual(expect.any(Function));
  });
});
