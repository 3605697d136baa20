import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export type RedemptionOutcome =
  | 'redeemed'
  | 'manual'
  | 'repeated'
  | 'unknown_code'
  | 'already_redeemed'
  | 'already_issued'
  | 'void'
  | 'inactive_product'
  | 'geo_blocked'
  | 'risk_refused'
  | 'held'
  | 'error';

/**
 * The process's Prometheus registry and the series counted as things happen (GET /metrics, docs/operations.md).
 * One registry per application instance rather than prom-client's global one: tests run several apps in a process.
 * Series read from the database at scrape time are registered by the metrics module.
 */
@Injectable()
export class AppMetrics {
  readonly registry = new Registry();

  readonly redemptions = new Counter({
    name: 'voucher_redemptions_total',
    help: 'Redemption requests answered by this instance, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Times every request. The route label is Express's matched pattern (`/api/products/:id`), never the raw path,
   * so ids and tokens make no new series; what matched no route (the web app, unknown paths) is `unmatched`.
   */
  httpMiddleware(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      const end = this.httpDuration.startTimer();
      res.once('finish', () => {
        const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
        end({ method: req.method, route, status_code: String(res.statusCode) });
      });
      next();
    };
  }
}
