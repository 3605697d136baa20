/** The default for statements: up to 100 calls a statement, two statements at once. */
export const STATEMENT_BATCHES = { maxBatch: 100, maxInFlight: 2 };

/**
 * Gathers concurrent calls into one call of `run`: the calls made while the event loop works through what is ready
 * (one turn), and those made while `maxInFlight` batches are already running, go together (up to `maxBatch`). `run`
 * answers one result per input, in the inputs' order; when it fails, every call of its batch fails with its error.
 * Under load many jobs then share one statement instead of one each; a lone call waits for one turn only.
 */
export class Batcher<In, Out> {
  private waiting: Array<{ input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly options: { maxBatch: number; maxInFlight: number } = STATEMENT_BATCHES,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.waiting.length && this.inFlight < this.options.maxInFlight) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.runBatch(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async runBatch(batch: typeof this.waiting): Promise<void> {
    try {
      const outs = await this.run(batch.map((call) => call.input));
      batch.forEach((call, i) => call.resolve(outs[i]));
    } catch (err) {
      for (const call of batch) call.reject(err);
    }
  }
}
