import { Clock } from '../clock';

/**
 * A value read through `load` at most every `ttlMs()` milliseconds; concurrent readers share one read. `load` gets
 * the value held until now (undefined before the first read), e.g. to keep it when a read fails. Its age is measured
 * on the Clock.
 */
export class CachedValue<T> {
  private held?: { value: T; at: number };
  private loading?: Promise<T>;

  constructor(
    private readonly load: (previous: T | undefined) => Promise<T>,
    private readonly ttlMs: () => number,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<T> {
    if (this.held && this.clock.now().getTime() - this.held.at < this.ttlMs()) return this.held.value;
    this.loading ??= this.load(this.held?.value)
      .then((value) => {
        this.held = { value, at: this.clock.now().getTime() };
        return value;
      })
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** The value held now, fresh or not (undefined before the first read). */
  current(): T | undefined {
    return this.held?.value;
  }

  /** The next `get` reads again. */
  invalidate(): void {
    this.held = undefined;
  }
}
