import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet, { HelmetOptions } from 'helmet';

type HeaderStep = { set: string; value: string | number | readonly string[] } | { remove: string };

/**
 * helmet's headers, worked out once: with a static configuration (no function directives such as CSP nonces)
 * helmet sets the same headers on every response, so they are recorded at start-up from helmet itself and replayed
 * per request, instead of running its fifteen middlewares per request (issue 26, API CPU per redemption).
 */
export function securityHeaders(options: Readonly<HelmetOptions>): RequestHandler {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      steps.push({ set: name, value });
      return recorder;
    },
    removeHeader(name: string) {
      steps.push({ remove: name });
    },
  };
  let done = false;
  helmet(options)({} as Request, recorder as unknown as Response, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  // helmet with a static configuration is synchronous; anything else is not replayable.
  if (!done) throw new Error('helmet did not finish synchronously: its headers cannot be worked out once');
  return (_req: Request, res: Response, next: NextFunction) => {
    for (const step of steps) {
      if ('set' in step) res.setHeader(step.set, step.value);
      else res.removeHeader(step.remove);
    }
    next();
  };
}
