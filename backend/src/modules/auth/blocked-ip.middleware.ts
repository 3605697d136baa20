import type { NextFunction, Response } from 'express';
import { clientIp } from '../../common/utils/client-ip';
import { AUTH_MESSAGES } from './auth.guard';
import { BlockCheckedRequest, BlockedIpService, CHECKED_BLOCK } from './blocked-ip.service';

/**
 * Express middleware for everything the HTTP server answers outside Nest's routes (the web app, 404s).
 * Nest routes are covered by the global guard as well, so an app built without this still refuses.
 */
export function blockedIpMiddleware(blockedIps: BlockedIpService) {
  return (req: BlockCheckedRequest, res: Response, next: NextFunction) => {
    blockedIps.blockOf(clientIp(req)).then((block) => {
      req[CHECKED_BLOCK] = block;
      // An address blocked for guessing codes still loads the web app; the API answers it 429 with the reason.
      if (!block || block === 'guessing') return next();
      res.status(403).json({ statusCode: 403, message: AUTH_MESSAGES.ipBlocked, error: 'Forbidden' });
    }, next);
  };
}
