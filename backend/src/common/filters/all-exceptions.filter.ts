import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'http';
import type { Response } from 'express';

export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  [extra: string]: unknown;
}

/**
 * Every error leaves as `{statusCode, message, error}` with one human message (docs/product.md §9.1).
 * Unknown errors are logged and answered with a generic 500: no stack traces, no SQL.
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
    res.status(body.statusCode).json(body);
  }
}

export function toErrorBody(exception: unknown): ErrorBody {
  if (exception instanceof HttpException) {
    const statusCode = exception.getStatus();
    const response = exception.getResponse();
    const error = STATUS_CODES[statusCode] ?? 'Error';
    if (typeof response === 'string') return { statusCode, message: response, error };
    const { message, error: _ignored, statusCode: _status, ...extra } = response as Record<string, unknown>;
    const text = Array.isArray(message) ? String(message[0]) : typeof message === 'string' ? message : exception.message;
    return { statusCode, message: text, error: typeof _ignored === 'string' ? _ignored : error, ...extra };
  }
  // body-parser errors (malformed JSON, too large) carry an HTTP status of their own.
  const status = (exception as { status?: number; statusCode?: number })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = status === 413 ? 'Request is too large' : 'Request body could not be read';
    return { statusCode: status, message, error: STATUS_CODES[status] ?? 'Error' };
  }
  return {
    statusCode: HttpStatus.INTERNAL_SERVER_ERROR,
    message: 'Something went wrong on our side. Please try again later.',
    error: 'Internal Server Error',
  };
}
