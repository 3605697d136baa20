import type { Request } from 'express';
import type { AuthUser } from '../decorators/current-user.decorator';
import { clientIp } from './client-ip';

/** Where a request came from, as stored on sessions and audit rows. */
export interface RequestMeta {
  ipAddress: string;
  userAgent: string | null;
}

/** Who did it, for security_audit_log: the signed-in admin (if the guard put one on the request), IP and agent. */
export interface RequestActor {
  adminUserId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
}

export function requestMeta(req: Request): RequestMeta {
  const agent = req.headers['user-agent'];
  return { ipAddress: clientIp(req), userAgent: agent ? agent.slice(0, 500) : null };
}

/** The user is absent only on routes without the guard. */
export function requestActor(req: Request, user: AuthUser | undefined): RequestActor {
  const meta = requestMeta(req);
  return { adminUserId: user?.id ?? null, ipAddress: meta.ipAddress || null, userAgent: meta.userAgent };
}
