import { Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { Readable, Transform, TransformCallback, type Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { Clock } from '../../common/clock';
import { dayIn } from '../../common/utils/day';
import { RequestActor } from '../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { neutraliseCell } from './csv-safety';
import { ExportFormat } from './dto/export.dto';
import { CodeExport, ExportRepository, RedemptionExportSelection } from './export.repository';
import { DomainEvents } from '../../events/domain-events.service';
import type { ExportKind } from '../../events/domain-events';

export interface ExportColumn {
  key: string;
  header: string;
}

export interface ExportJob {
  kind: ExportKind;
  format: ExportFormat;
  /**
   * What the file holds, asked of ExportRepository by name (the repository owns its SQL):
   * - `redemptions`: the selected redemptions, marked exported in the same transaction, from a cursor;
   * - `codes`: a code-only export, straight from PostgreSQL's `COPY … TO STDOUT` (CSV) with cells already
   *   neutralised and timestamps already ISO 8601, so no row becomes a JavaScript object (docs/benchmarks.md).
   */
  source: { redemptions: RedemptionExportSelection } | { codes: CodeExport };
  columns: ExportColumn[];
  emptyMessage: string;
  /**
   * Applied to each row of the cursor path as it streams: licence keys are opened here (never in SQL) and masked
   * through the row's inventory declarations (`maskInventory`) for the caller's permissions.
   */
  mapRow?: (row: Record<string, unknown>) => Record<string, unknown>;
  details: Record<string, unknown>;
}

/** What the file is, for the HTTP layer's headers. */
export interface ExportFile {
  contentType: string;
  fileName: string;
}

/**
 * Where an export file goes, as the controller hands it over (services see no HTTP framework object): `open` is
 * called once, before the first byte (status and headers, nothing sent yet); `body` receives the file and is ended
 * (complete) or destroyed (broken off: the only honest signal once bytes went out); `sent` says whether anything
 * went out yet.
 */
export interface ExportOutput {
  open(file: ExportFile): void;
  body: Writable;
  sent(): boolean;
}

/** Thrown inside a database callback once a broken-off export is reported, so its connection is discarded. */
class ExportAborted extends Error {}

/**
 * Writes an export file (docs/product.md §16.1) into the controller's output as the rows arrive, so memory does not grow with the
 * export: CSV through csv-stringify or TXT from a cursor, or a code-only export straight from COPY. Redemption
 * exports mark their rows in the same transaction, committed only once the whole file has been written: an
 * export that breaks off (client gone, error) leaves nothing marked.
 */
@Injectable()
export class ExportWriter {
  private readonly logger = new Logger(ExportWriter.name);

  constructor(
    private readonly exports: ExportRepository,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async write(job: ExportJob, out: ExportOutput, ctx: RequestActor): Promise<void> {
    if ('codes' in job.source) return this.writeCopy(job, job.source.codes, out, ctx);
    const selection = job.source.redemptions;
    let rowCount = 0;
    let outcome: 'empty' | 'written';
    // The time the rows were marked (the transaction's now()): the audit row carries it, so a redemption's
    // history can tell which export (and who) marked it.
    let exportedAt: Date | undefined;
    try {
      outcome = await this.exports.streamMarkedRedemptions(selection, async (cursor) => {
        // The first row decides between a file and a 404, before any header is sent.
        const first = await cursor.next();
        if (first.done) return 'empty';
        if (first.value.exported_at instanceof Date) exportedAt = first.value.exported_at;
        async function* records() {
          const map = job.mapRow ?? ((row: Record<string, unknown>) => row);
          rowCount = 1;
          yield map(first.value);
          for (let next = await cursor.next(); !next.done; next = await cursor.next()) {
            rowCount++;
            yield map(next.value);
          }
        }

        this.open(job, out);
        try {
          if (job.format === 'csv') {
            const toCells = async function* () {
              for await (const row of records()) yield job.columns.map((col) => neutraliseCell(row[col.key]));
            };
            await pipeline(
              Readable.from(toCells()),
              stringify({
                bom: true,
                header: true,
                columns: job.columns.map((c) => c.header),
                record_delimiter: 'windows',
              }),
              out.body,
              { end: false },
            );
          } else {
            // TXT: one code per line, as stored (codes hold only letters, digits, - and _).
            const lines = async function* () {
              for await (const row of records()) yield `${row.code}\r\n`;
            };
            await pipeline(Readable.from(lines()), out.body, { end: false });
          }
        } catch (err) {
          await this.abort(job, out, ctx, rowCount, err);
          throw new ExportAborted();
        }
        // Resolving commits, before the response ends: a client holding the whole file sees its rows marked.
        return 'written';
      });
    } catch (err) {
      return this.failed(err, out);
    }
    if (outcome === 'empty') return this.empty(job, ctx);
    await this.written(job, out, ctx, {
      rows: rowCount,
      ...(exportedAt && { exportedAt: exportedAt.toISOString() }),
    });
  }

  /** A code-only export through `COPY … TO STDOUT`: same file, same audit, no per-row JavaScript work. */
  private async writeCopy(job: ExportJob, codes: CodeExport, out: ExportOutput, ctx: RequestActor) {
    const lines = new CrLfLines();
    let outcome: 'empty' | 'written';
    try {
      outcome = await this.exports.copyCodes(codes, job.format, async (found, open) => {
        if (!found) return 'empty';
        this.open(job, out);
        // What csv-stringify writes with `bom` and `header`: the BOM, then the header line.
        if (job.format === 'csv') out.body.write(`\uFEFF${job.columns.map((c) => c.header).join(',')}\r\n`);
        try {
          await pipeline(open(), lines, out.body, { end: false });
        } catch (err) {
          await this.abort(job, out, ctx, lines.count, err);
          throw new ExportAborted();
        }
        return 'written';
      });
    } catch (err) {
      return this.failed(err, out);
    }
    if (outcome === 'empty') return this.empty(job, ctx);
    await this.written(job, out, ctx, { rows: lines.count });
  }

  /**
   * The database work failed. Broken off and reported already (`ExportAborted`): nothing more. Otherwise, once bytes
   * went out (the transaction failed after the file was written: a broken connection), the response is destroyed,
   * never ended as a "complete" file, and the error goes on.
   */
  private failed(err: unknown, out: ExportOutput): void {
    if (err instanceof ExportAborted) return;
    if (out.sent()) out.body.destroy();
    throw err;
  }

  /**
   * The whole file is written (and its rows marked, committed): audited before the response ends, so a client holding
   * the whole file finds its export in the audit log; ended even when the audit fails.
   */
  private async written(
    job: ExportJob,
    out: ExportOutput,
    ctx: RequestActor,
    details: { rows: number; exportedAt?: string },
  ): Promise<void> {
    try {
      await this.events.publish(`export.${job.kind}`, {
        ...ctx,
        success: true,
        resource: 'export',
        details: { ...job.details, format: job.format, ...details },
        // Only an export that marks redemptions exported (the cursor path: all that read redemptions) changes what
        // the consoles show.
        ...('redemptions' in job.source && { exportedRows: details.rows }),
      });
    } finally {
      out.body.end();
    }
  }

  private async empty(job: ExportJob, ctx: RequestActor): Promise<never> {
    await this.events.publish(`export.${job.kind}`, {
      ...ctx,
      success: false,
      resource: 'export',
      details: { ...job.details, format: job.format, reason: 'empty' },
    });
    throw new NotFoundException(job.emptyMessage);
  }

  private open(job: ExportJob, out: ExportOutput): void {
    out.open({
      contentType: job.format === 'csv' ? 'text/csv; charset=utf-8' : 'text/plain; charset=utf-8',
      fileName: `${job.kind}-${this.today()}.${job.format}`,
    });
  }

  /** Headers are out: the only honest signal left is a broken connection, never a short "complete" file. */
  private async abort(job: ExportJob, out: ExportOutput, ctx: RequestActor, rows: number, err: unknown): Promise<void> {
    this.logger.warn(`Export ${job.kind} broke off after ${rows} rows: ${err instanceof Error ? err.message : err}`);
    out.body.destroy();
    await this.events.publish(`export.${job.kind}`, {
      ...ctx,
      success: false,
      resource: 'export',
      details: { ...job.details, format: job.format, rows, reason: 'aborted' },
    });
  }

  /** YYYY-MM-DD in the server time zone. */
  private today(): string {
    return dayIn(this.config.timeZone, this.clock.now());
  }
}

const CRLF = Buffer.from('\r\n');

/** COPY's LF line ends as CRLF (RFC 4180, what csv-stringify writes with `record_delimiter: 'windows'`); counts lines. */
class CrLfLines extends Transform {
  count = 0;

  _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const parts: Buffer[] = [];
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      parts.push(chunk.subarray(start, i), CRLF);
      start = i + 1;
      this.count++;
    }
    parts.push(chunk.subarray(start));
    done(null, Buffer.concat(parts));
  }
}
