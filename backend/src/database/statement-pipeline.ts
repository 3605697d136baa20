import { performance } from 'perf_hooks';
import { Client, type ClientConfig, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';

/**
 * A connection whose first statement in flight has run this long without an answer is waiting (for a row lock an
 * admin's void holds, say): no more statements are queued behind it until it answers. A redemption takes 1–10 ms.
 */
export const PIPELINE_STALL_MS = 20;

/** One connection of the pipeline. */
interface Lane {
  client: Client;
  /** Statements sent on it and not yet answered (they are answered in order). */
  inFlight: number;
  /** When the first of them became the first: it was sent to an idle connection, or the one before it was answered. */
  headSince: number;
  ready: Promise<void>;
  /** Its writes are held until the event loop's next turn (`cork`). */
  corked: boolean;
}

/** Where a statement goes when every connection of the pipeline is waiting: the pool. */
type Fallback = <R extends QueryResultRow>(statement: QueryConfig) => Promise<QueryResult<R>>;

/**
 * A hot statement's own few connections in pipeline mode (node-postgres `pipeline: true`; DB_PIPELINE_CONNECTIONS,
 * docs/architecture.md "The redemption's pipeline"). A statement goes out at once on the connection with the fewest
 * statements in flight, behind those, instead of waiting for a free connection of the pool; its backend works
 * through its queue without waiting for the API between two statements, and the statements a turn of the event loop
 * sends to one connection leave in one write. Each statement ends with its own Sync, so it stays its own transaction:
 * one that fails (a unique violation) fails alone, and PostgreSQL runs the next one as if nothing happened. A
 * connection that dies fails the statements in flight on it (what a dead pool connection does to its one) and is
 * replaced on the next statement. A connection whose statement waits (PIPELINE_STALL_MS) is passed over, and when
 * every one waits the statement goes to the pool (`fallback`): a lock delays only the few statements already
 * queued behind its waiter, not the redemptions after them.
 */
export class StatementPipeline {
  private readonly lanes: Lane[] = [];
  private ended = false;

  constructor(
    /** The pool's connection settings (URL, session options); `pipeline` is set here. */
    private readonly config: ClientConfig,
    /** At most this many connections; a new one opens only while every open one has a statement in flight. */
    private readonly size: number,
    private readonly fallback: Fallback,
  ) {}

  async query<R extends QueryResultRow>(statement: QueryConfig): Promise<QueryResult<R>> {
    if (this.ended) throw new Error('Client was closed and is not queryable');
    const lane = this.lane();
    if (!lane) return this.fallback<R>(statement);
    if (lane.inFlight++ === 0) lane.headSince = performance.now();
    try {
      await lane.ready;
      this.cork(lane);
      return await lane.client.query<R>(statement);
    } finally {
      lane.inFlight--;
      lane.headSince = performance.now();
    }
  }

  /**
   * Ends every connection and refuses statements from then on: the app's shutdown (`onApplicationShutdown`, after Nest
   * closed the HTTP server and its requests finished).
   */
  async end(): Promise<void> {
    this.ended = true;
    const lanes = this.lanes.splice(0);
    await Promise.all(lanes.map((lane) => lane.client.end().catch(() => undefined)));
  }

  /**
   * The open connection with the fewest statements in flight of those not waiting, or a new one while all are busy
   * and there is room; none (the fallback) when every connection waits.
   */
  private lane(): Lane | undefined {
    const now = performance.now();
    let best: Lane | undefined;
    for (const lane of this.lanes) {
      if (lane.inFlight > 0 && now - lane.headSince > PIPELINE_STALL_MS) continue;
      if (!best || lane.inFlight < best.inFlight) best = lane;
    }
    if (best && (best.inFlight === 0 || this.lanes.length >= this.size)) return best;
    return this.lanes.length < this.size ? this.open() : undefined;
  }

  private open(): Lane {
    const client = new Client({ ...this.config, pipeline: true } as ClientConfig);
    const ready = client.connect().then(() => undefined);
    const lane: Lane = { client, inFlight: 0, headSince: 0, ready, corked: false };
    const drop = () => {
      const at = this.lanes.indexOf(lane);
      if (at >= 0) this.lanes.splice(at, 1);
    };
    // A connection that dies (a restart, a terminated backend) fails its statements in flight; the next one opens anew.
    client.on('error', drop);
    client.on('end', drop);
    lane.ready.catch(drop);
    this.lanes.push(lane);
    return lane;
  }

  /**
   * Holds the connection's writes until the event loop's next turn (`setImmediate`), so that the statements sent to it
   * meanwhile (requests read together) leave in one write instead of one each.
   */
  private cork(lane: Lane): void {
    if (lane.corked) return;
    const stream = (lane.client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection
      .stream;
    stream.cork();
    lane.corked = true;
    setImmediate(() => {
      lane.corked = false;
      stream.uncork();
    });
  }
}
