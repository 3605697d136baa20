import { Injectable } from '@nestjs/common';

/** Rows deleted per statement: no statement holds locks on a large table for long. */
export const RETENTION_BATCH = 5000;

interface RetentionPart {
  name: string;
  deleteBatch: (batch: number) => Promise<number>;
}

/**
 * What the retention run deletes, asked of each owner (docs/product.md §1.5): an owner registers, on init, a
 * batched delete of its old rows under the name the run reports them by (two deletes under one name add up), and
 * work to do once the deletes are done (the day counters' folding). Parts run in the order they were registered.
 */
@Injectable()
export class RetentionRegistry {
  private readonly parts: RetentionPart[] = [];
  private readonly after: Array<() => Promise<unknown>> = [];

  /** `deleteBatch(batch)` deletes at most `batch` rows and answers how many: it runs until a batch comes back short. */
  deletes(name: string, deleteBatch: (batch: number) => Promise<number>): void {
    this.parts.push({ name, deleteBatch });
  }

  afterDeletes(work: () => Promise<unknown>): void {
    this.after.push(work);
  }

  /** Runs every part, then the work after them; answers the rows deleted per name. */
  async run(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const part of this.parts) result[part.name] = (result[part.name] ?? 0) + (await inBatches(part.deleteBatch));
    for (const work of this.after) await work();
    return result;
  }
}

async function inBatches(deleteBatch: (batch: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteBatch(RETENTION_BATCH);
    deleted += n;
    if (n < RETENTION_BATCH) return deleted;
  }
}
