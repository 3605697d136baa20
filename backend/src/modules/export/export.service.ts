import { Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import type { Response } from 'express';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import QueryStream from 'pg-query-stream';
import { Readable, Transform, TransformCallback } from 'stream';
import { pipeline } from 'stream/promises';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import { rawPgClient } from '../../database/pg-client';
import { likeContains } from '../../common/utils/sql';
import { RequestActor as AuditContext } from '../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuditService } from '../audit/audit.service';
import { RealtimeService } from '../realtime/realtime.service';
import { neutraliseCell } from './csv-safety';
import { ExportFormat, ProductExportQuery, RedeemedVouchersExportQuery } from './dto/export.dto';

interface Column {
  key: string;
  header: string;
}

interface ExportJob {
  kind: string;
  format: ExportFormat;
  sql: string;
  params: unknown[];
  columns: Column[];
  emptyMessage: string;
  /** True when the statement marks the rows it returns as exported. */
  marks: boolean;
  /**
   * Code-only exports: the rows come straight from PostgreSQL's `COPY … TO STDOUT` (CSV) with cells already
   * neutralised and timestamps already ISO 8601, so no row becomes a JavaScript object (docs/benchmarks.md).
   * `$1` is the job's single parameter, inlined as a literal (COPY takes no bind parameters).
   */
  copy?: { csv: string; txt: string };
  details: Record<string, unknown>;
}

/** Columns of an export of redemptions (customer data). */
const REDEMPTION_COLUMNS: Column[] = [
  { key: 'code', header: 'Voucher Code' },
  { key: 'first_name', header: 'First Name' },
  { key: 'last_name', header: 'Last Name' },
  { key: 'email', header: 'Email' },
  { key: 'phone', header: 'Phone' },
  { key: 'country', header: 'Country' },
  { key: 'product', header: 'Product' },
  { key: 'email_status', header: 'Email Status' },
  { key: 'license_key', header: 'License Key' },
  { key: 'download_link', header: 'Download Link' },
  { key: 'redeemed_at', header: 'Redeemed At' },
  { key: 'exported_at', header: 'Exported At' },
];

/**
 * Marks the matching redemptions exported and returns them with their customer, product and latest
 * licence (MANUAL_ prefix removed). `{where}` filters `r` (redemptions), `v` (codes) and `c` (customers).
 * PostgreSQL runs the data-modifying WITH to completion on the first fetch; rows then come in batches.
 */
export const markAndSelect = (where: string) => `
WITH marked AS (
  UPDATE redemptions r SET exported = true, exported_at = now()
    FROM voucher_codes v, customers c
   WHERE v.id = r.voucher_code_id AND c.id = r.customer_id AND (${where})
  RETURNING r.id, v.code, c.first_name, c.last_name, c.email, c.phone, c.country,
            r.product_id, r.email_status, r.redeemed_at, r.exported_at
)
SELECT m.code, m.first_name, m.last_name, m.email, m.phone, m.country, p.name AS product, m.email_status,
       CASE WHEN lk.license_key LIKE 'MANUAL\\_%' THEN substr(lk.license_key, 8) ELSE lk.license_key END AS license_key,
       coalesce(lk.download_link, p.download_link) AS download_link,
       m.redeemed_at, m.exported_at
  FROM marked m
  JOIN products p ON p.id = m.product_id
  LEFT JOIN LATERAL (
    SELECT k.license_key, k.download_link
      FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
     WHERE a.redemption_id = m.id
     ORDER BY a.assigned_at DESC LIMIT 1
  ) lk ON true
 ORDER BY m.redeemed_at DESC, m.id DESC`;

/**
 * File exports (DECISIONS §10). Rows come from a server-side cursor (pg-query-stream) through
 * csv-stringify straight into the response, so memory does not grow with the export. Redemption exports
 * mark their rows while streaming, in the same transaction, committed only once the whole file has been
 * written: an export that breaks off (client gone, error) leaves nothing marked.
 */
@Injectable()
export class ExportService {
  private readonly logger = new Logger(ExportService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly realtime: RealtimeService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  selectedRedemptions(ids: string[], format: ExportFormat, res: Response, ctx: AuditContext): Promise<void> {
    return this.run(
      {
        kind: 'selected-redemptions',
        format,
        sql: markAndSelect('r.id = ANY($1::uuid[])'),
        params: [[...new Set(ids)]],
        columns: REDEMPTION_COLUMNS,
        emptyMessage: 'No redemptions found to export.',
        marks: true,
        details: { requested: ids.length },
      },
      res,
      ctx,
    );
  }

  /** The redemption list as filtered on screen (Recent Redemptions or, with showExported=true, Exported Vouchers). */
  redeemedVouchers(query: RedeemedVouchersExportQuery, res: Response, ctx: AuditContext): Promise<void> {
    const params: unknown[] = [query.showExported === 'true'];
    const where = ['r.exported = $1'];
    if (query.emailStatus && query.emailStatus !== 'all') {
      params.push(query.emailStatus);
      where.push(`r.email_status = $${params.length}`);
    }
    if (query.search) {
      params.push(likeContains(query.search));
      const p = `$${params.length}`;
      where.push(`(v.code ILIKE ${p} OR (c.first_name || ' ' || c.last_name) ILIKE ${p} OR c.email ILIKE ${p})`);
    }
    return this.run(
      {
        kind: 'redeemed-vouchers',
        format: query.format,
        sql: markAndSelect(where.join(' AND ')),
        params,
        columns: REDEMPTION_COLUMNS,
        emptyMessage: 'No redeemed vouchers found to export.',
        marks: true,
        details: { showExported: query.showExported === 'true', emailStatus: query.emailStatus, search: query.search },
      },
      res,
      ctx,
    );
  }

  /** Redeemed codes only, no customer data (operators may export these); marks nothing. */
  redeemedVoucherCodes(query: ProductExportQuery, res: Response, ctx: AuditContext): Promise<void> {
    return this.run(
      {
        kind: 'redeemed-voucher-codes',
        format: query.format,
        sql: `SELECT v.code, p.name AS product, v.redeemed_at
                FROM voucher_codes v JOIN products p ON p.id = v.product_id
               WHERE v.is_redeemed AND ($1::uuid IS NULL OR v.product_id = $1)
               ORDER BY v.redeemed_at DESC, v.seq DESC`,
        params: [query.productId ?? null],
        columns: [
          { key: 'code', header: 'Voucher Code' },
          { key: 'product', header: 'Product' },
          { key: 'redeemed_at', header: 'Redeemed At' },
        ],
        emptyMessage: 'No redeemed voucher codes found to export.',
        marks: false,
        copy: {
          csv: `SELECT ${neutralisedSql('v.code')}, ${neutralisedSql('p.name')}, ${isoSql('v.redeemed_at')}
                  FROM voucher_codes v JOIN products p ON p.id = v.product_id
                 WHERE v.is_redeemed AND ($1::uuid IS NULL OR v.product_id = $1)
                 ORDER BY v.redeemed_at DESC, v.seq DESC`,
          txt: `SELECT v.code FROM voucher_codes v
                 WHERE v.is_redeemed AND ($1::uuid IS NULL OR v.product_id = $1)
                 ORDER BY v.redeemed_at DESC, v.seq DESC`,
        },
        details: { productId: query.productId },
      },
      res,
      ctx,
    );
  }

  async unredeemedVouchers(query: ProductExportQuery, res: Response, ctx: AuditContext): Promise<void> {
    if (query.productId) {
      const [product] = await this.dataSource.query(`SELECT 1 FROM products WHERE id = $1`, [query.productId]);
      if (!product) throw new NotFoundException('Product not found.');
    }
    return this.run(
      {
        kind: 'unredeemed-vouchers',
        format: query.format,
        sql: `SELECT v.code, p.name AS product, v.created_at
                FROM voucher_codes v JOIN products p ON p.id = v.product_id
               WHERE NOT v.is_redeemed AND ($1::uuid IS NULL OR v.product_id = $1)
               ORDER BY p.name, v.seq DESC`,
        params: [query.productId ?? null],
        columns: [
          { key: 'code', header: 'Voucher Code' },
          { key: 'product', header: 'Product' },
          { key: 'created_at', header: 'Created At' },
        ],
        emptyMessage: 'No unredeemed voucher codes found to export.',
        marks: false,
        copy: {
          csv: `SELECT ${neutralisedSql('v.code')}, ${neutralisedSql('p.name')}, ${isoSql('v.created_at')}
                  FROM voucher_codes v JOIN products p ON p.id = v.product_id
                 WHERE NOT v.is_redeemed AND ($1::uuid IS NULL OR v.product_id = $1)
                 ORDER BY p.name, v.seq DESC`,
          txt: `SELECT v.code FROM voucher_codes v JOIN products p ON p.id = v.product_id
                 WHERE NOT v.is_redeemed AND ($1::uuid IS NULL OR v.product_id = $1)
                 ORDER BY p.name, v.seq DESC`,
        },
        details: { productId: query.productId },
      },
      res,
      ctx,
    );
  }

  private async run(job: ExportJob, res: Response, ctx: AuditContext): Promise<void> {
    if (job.copy) return this.runCopy(job, job.copy, res, ctx);
    const client: PoolClient = await rawPgClient(this.dataSource);
    let healthy = false;
    let rowCount = 0;
    try {
      await client.query('BEGIN');
      const rows = client.query(new QueryStream(job.sql, job.params, { batchSize: 500, highWaterMark: 500 }));
      const cursor = rows[Symbol.asyncIterator]() as AsyncIterator<Record<string, unknown>>;
      // The first row decides between a file and a 404, before any header is sent.
      const first = await cursor.next();
      if (first.done) {
        await client.query('ROLLBACK');
        healthy = true;
        await this.audit.record({
          ...ctx,
          action: `export.${job.kind}`,
          success: false,
          resource: 'export',
          details: { ...job.details, format: job.format, reason: 'empty' },
        });
        throw new NotFoundException(job.emptyMessage);
      }
      async function* records() {
        rowCount = 1;
        yield first.value;
        for (let next = await cursor.next(); !next.done; next = await cursor.next()) {
          rowCount++;
          yield next.value;
        }
      }

      this.fileHeaders(job, res);

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
            res,
            { end: false },
          );
        } else {
          // TXT: one code per line, as stored (codes hold only letters, digits, - and _).
          const lines = async function* () {
            for await (const row of records()) yield `${row.code}\r\n`;
          };
          await pipeline(Readable.from(lines()), res, { end: false });
        }
      } catch (err) {
        await this.abort(job, res, ctx, rowCount, err);
        return;
      }
      // Commit before the response ends: a client holding the whole file sees its rows marked exported.
      try {
        await client.query('COMMIT');
      } catch (err) {
        res.destroy();
        throw err;
      }
      res.end();
      healthy = true;
      await this.audit.record({
        ...ctx,
        action: `export.${job.kind}`,
        success: true,
        resource: 'export',
        details: { ...job.details, format: job.format, rows: rowCount },
      });
      if (job.marks) this.realtime.emit('voucherUpdate', `${rowCount} redemption(s) exported`);
    } finally {
      // A client left mid-transaction or mid-cursor is discarded: closing it rolls everything back.
      client.release(!healthy);
    }
  }

  private fileHeaders(job: ExportJob, res: Response): void {
    res.status(200);
    res.setHeader('Content-Type', job.format === 'csv' ? 'text/csv; charset=utf-8' : 'text/plain; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${job.kind}-${this.today()}.${job.format}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
  }

  /** Headers are out: the only honest signal left is a broken connection, never a short "complete" file. */
  private async abort(job: ExportJob, res: Response, ctx: AuditContext, rows: number, err: unknown): Promise<void> {
    this.logger.warn(`Export ${job.kind} broke off after ${rows} rows: ${err instanceof Error ? err.message : err}`);
    res.destroy();
    await this.audit.record({
      ...ctx,
      action: `export.${job.kind}`,
      success: false,
      resource: 'export',
      details: { ...job.details, format: job.format, rows, reason: 'aborted' },
    });
  }

  /** A code-only export through `COPY … TO STDOUT`: same file, same audit, no per-row JavaScript work. */
  private async runCopy(job: ExportJob, copy: { csv: string; txt: string }, res: Response, ctx: AuditContext) {
    const client: PoolClient = await rawPgClient(this.dataSource);
    let healthy = false;
    try {
      const param = job.params[0];
      const sql = (job.format === 'csv' ? copy.csv : copy.txt).replace(
        /\$1\b/g,
        param === null || param === undefined ? 'NULL' : client.escapeLiteral(String(param)),
      );
      // Without its ORDER BY, so the check stops at the first row instead of sorting them all.
      const [{ found }] = (await client.query(`SELECT EXISTS (${sql.replace(/ORDER BY[\s\S]*$/, '')}) AS found`)).rows;
      if (!found) {
        healthy = true;
        await this.audit.record({
          ...ctx,
          action: `export.${job.kind}`,
          success: false,
          resource: 'export',
          details: { ...job.details, format: job.format, reason: 'empty' },
        });
        throw new NotFoundException(job.emptyMessage);
      }
      this.fileHeaders(job, res);
      // What csv-stringify writes with `bom` and `header`: the BOM, then the header line.
      if (job.format === 'csv') res.write(`\uFEFF${job.columns.map((c) => c.header).join(',')}\r\n`);
      const lines = new CrLfLines();
      try {
        await pipeline(client.query(copyTo(`COPY (${sql}) TO STDOUT WITH (FORMAT csv)`)), lines, res);
      } catch (err) {
        await this.abort(job, res, ctx, lines.count, err);
        return;
      }
      healthy = true;
      await this.audit.record({
        ...ctx,
        action: `export.${job.kind}`,
        success: true,
        resource: 'export',
        details: { ...job.details, format: job.format, rows: lines.count },
      });
    } finally {
      client.release(!healthy);
    }
  }

  /** YYYY-MM-DD in the server time zone. */
  private today(): string {
    return new Intl.DateTimeFormat('en-CA', {
      timeZone: this.config.timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(this.clock.now());
  }
}

/** SQL twin of `neutraliseCell` for text: a cell starting with = + - @ tab or CR gets a leading `'`. */
function neutralisedSql(expr: string): string {
  return `CASE WHEN ${expr} ~ '^[-=+@\\t\\r]' THEN '''' || ${expr} ELSE ${expr} END`;
}

/** SQL twin of `Date.toISOString()`: UTC, milliseconds, `Z`. */
function isoSql(expr: string): string {
  return `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
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
