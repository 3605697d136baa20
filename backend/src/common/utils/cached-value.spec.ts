import { Clock } from '../clock';
import { CachedValue } from './cached-value';

describe('CachedValue', () => {
  let now = 1_000;
  const clock = new Clock();
  beforeEach(() => jest.spyOn(clock, 'now').mockImplementation(() => new Date(now)));
  afterEach(() => jest.restoreAllMocks());

  it('reads once for concurrent callers, again after the TTL or an invalidate, handing the previous value to load', async () => {
    const seen: Array<number | undefined> = [];
    let reads = 0;
    const cached = new CachedValue<number>(
      async (previous) => {
        seen.push(previous);
        return ++reads;
      },
      () => 100,
      clock,
    );
    expect(cached.current()).toBeUndefined();
    expect(await Promise.all([cached.get(), cached.get(), cached.get()])).toEqual([1, 1, 1]);
    now += 99;
    expect(await cached.get()).toBe(1);
    now += 1;
    expect(await cached.get()).toBe(2);
    cached.invalidate();
    expect(await cached.get()).toBe(3);
    expect(seen).toEqual([undefined, 1, undefined]);
    expect(cached.current()).toBe(3);
  });
});
