import { randomUUID } from 'crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

export interface RequestLogOptions {
  /** Requests whose completion is not logged (their request id and request logger are still set). */
  ignore?: (req: Request) => boolean;
}

/**
 * A caller's own request id (a proxy's or a client's trace id) that is kept: 1–128 letters, digits and `_ . : -`
 * (docs/product.md §18.4). Anything else, a list of them, a kilobyte, text meant to read as something else in a log
 * search, gets an id of ours.
 */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The request log, in pino-http's format (`req`, `res`, `responseTime`; "request completed", or "request errored"
 * with `err` from status 500) and through the logger's own `req`/`res` serializers, so the line is redacted as
 * before (log-redaction.ts). Each request gets an id (its `X-Request-Id`, or a new one, answered in the same header)
 * and `req.log`, a child logger bound to that id only: what the application logs during the request carries
 * `reqId`, and the completion line carries the whole request. pino-http binds the serialized request to a child
 * logger on every request, whether anything is ever logged or not; here a request is serialized only when its line
 * is written (issue 26, API CPU per redemption). nestjs-pino takes `req.log` from here (`useExisting`).
 */
export function requestLog(root: Logger, options: RequestLogOptions = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', id);
    req.id = id;
    const log = root.child({ reqId: id });
    req.log = log;
    if (!options.ignore?.(req)) {
      const started = Date.now();
      const done = () => {
        res.removeListener('finish', done);
        res.removeListener('close', done);
        if (!log.isLevelEnabled('info')) return;
        const line = { req, res, responseTime: Date.now() - started };
        if (res.statusCode >= 500) {
          log.info({ ...line, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
        } else log.info(line, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
      };
      res.on('finish', done);
      res.on('close', done);
    }
    next();
  };
}
