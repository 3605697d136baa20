import type { NextFunction, Request, Response } from 'express';

/**
 * Every API answer is someone's own data: a licence key on the success page, a customer's details, a session's
 * tokens. `Cache-Control: no-store` keeps each one out of the browser's disk cache (a shared or public computer) and
 * out of any cache on the way, on every route at once, so a new route cannot forget it (docs/security.md).
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}
