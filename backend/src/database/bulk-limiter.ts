import { ServiceUnavailableException } from '@nestjs/common';

export const BULK_BUSY_MESSAGE = 'The server is busy with other uploads and exports. Please try again in a minute.';

/**
 * At most `max` bulk operations (uploads, exports) hold a database connection at once, so a slow upload
 * or export can never take the whole pool from the public redemption. A caller over the limit waits up
 * to `waitMs` for a slot, then gets 503 with BULK_BUSY_MESSAGE.
 */
export class BulkLimiter {
  private active = 0;
  private refused = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly waitMs: number,
  ) {}

  /** Slots held now, callers waiting, and callers refused since start. */
  get load(): { active: number; waiting: number; refused: number } {
    return { active: this.active, waiting: this.waiting.length, refused: this.refused };
  }

  /** Resolves with the function that gives the slot back (call it exactly once). */
  async acquire(): Promise<() => void> {
    if (this.active < this.max) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(wake), 1);
        this.refused++;
        reject(new ServiceUnavailableException(BULK_BUSY_MESSAGE));
      }, this.waitMs);
      this.waiting.push(wake);
    });
    // The slot was handed over by release(): `active` already counts it.
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
