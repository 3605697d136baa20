import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'http';
import type { Response } from 'express';
import { JSON_TOO_DEEP } from '../json-depth';

export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  [extra: string]: unknown;
}

/**
 * Every error leaves as `{statusCode, message, error}` with one human message (docs/product.md §9.1).
 * Unknown errors are logged and answered with a generic 500: no stack traces, no SQL. A lost database connection is
 * a 503 with `Retry-After` (the client may try again: nothing was half written, docs/product.md §9.5).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    const body = toErrorBody(exception);
    if (body.statusCode >= 500) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    if (body.message === DATABASE_UNAVAILABLE_MESSAGE) res.setHeader('Retry-After', '5');
    res.status(body.statusCode).json(body);
  }
}

/** A lost or refused database connection (docs/product.md §9.5): worth a retry in a moment. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'The service is briefly unavailable. Please try again in a moment.';

/**
 * PostgreSQL's connection classes: 08 (connection exception) and 57P01–57P03 (the server shutting down or restarting,
 * an administrator terminating the backend); node-postgres's own errors for a connection that died or was refused, or
 * that had died when a statement was written to it or given to it (EPIPE, "… is not queryable": StatementPipeline).
 * TypeORM wraps the driver's error in `driverError`. A statement that failed for any other reason stays a 500.
 */
export function isDatabaseUnavailable(exception: unknown): boolean {
  for (const err of [exception, (exception as { driverError?: unknown } | null)?.driverError]) {
    if (!err || typeof err !== 'object') continue;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code))) return true;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE') return true;
    const message = (err as { message?: unknown }).message;
    const lost = /^Connection terminated|timeout exceeded when trying to connect|is not queryable$/;
    if (typeof message === 'string' && lost.test(message)) return true;
  }
  return false;
}

/** What body-parser and Express throw for a body or URL they cannot read (`type` is body-parser's). */
interface ReadError {
  status?: number;
  type?: string;
  limit?: number;
  /** The deepest nesting allowed, on a body refused for nesting deeper (common/json-depth.ts). */
  depth?: number;
}

/**
 * A clear sentence for a body or URL that could not be read, instead of the parser's own text ("Unexpected end of
 * JSON input", "request entity too large"); undefined when the error is not one of those.
 */
function readErrorMessage(error: unknown): string | undefined {
  if (error instanceof URIError) return 'The URL contains an invalid percent-encoding';
  const { type, limit, depth } = (error ?? {}) as ReadError;
  if (type === 'entity.parse.failed') return 'The request body is not valid JSON';
  if (type === JSON_TOO_DEEP) return `The request body is nested too deeply (at most ${depth} levels)`;
  if (type === 'entity.too.large') {
    return `The request body is too large${limit ? ` (at most ${Math.round(limit / 1024)} kB)` : ''}`;
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return "The request body's encoding is not supported";
  }
  if (typeof type === 'string') return 'The request body could not be read';
  return undefined;
}

export function toErrorBody(exception: unknown): ErrorBody {
  // Nest maps body-parser's and Express's errors to HttpExceptions that keep the original as `cause`.
  const mapped = exception instanceof HttpException;
  const readMessage = readErrorMessage(mapped ? exception.cause : exception);
  const readStatus = mapped ? exception.getStatus() : ((exception as ReadError).status ?? HttpStatus.BAD_REQUEST);
  if (readMessage && readStatus >= 400 && readStatus < 500) {
    return { statusCode: readStatus, message: readMessage, error: STATUS_CODES[readStatus] ?? 'Error' };
  }
  if (exception instanceof HttpException) {
    const statusCode = exception.getStatus();
    const response = exception.getResponse();
    const error = STATUS_CODES[statusCode] ?? 'Error';
    if (typeof response === 'string') return { statusCode, message: response, error };
    const { message, error: _ignored, statusCode: _status, ...extra } = response as Record<string, unknown>;
    const text = Array.isArray(message)
      ? String(message[0])
      : typeof message === 'string'
        ? message
        : exception.message;
    return { statusCode, message: text, error: typeof _ignored === 'string' ? _ignored : error, ...extra };
  }
  // Other errors of a request that could not be read carry an HTTP status of their own.
  const status = (exception as ReadError | undefined)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { statusCode: status, message: 'The request could not be read', error: STATUS_CODES[status] ?? 'Error' };
  }
  if (isDatabaseUnavailable(exception)) {
    const statusCode = HttpStatus.SERVICE_UNAVAILABLE;
    return { statusCode, message: DATABASE_UNAVAILABLE_MESSAGE, error: 'Service Unavailable' };
  }
  return {
    statusCode: HttpStatus.INTERNAL_SERVER_ERROR,
    message: 'Something went wrong on our side. Please try again later.',
    error: 'Internal Server Error',
  };
}
