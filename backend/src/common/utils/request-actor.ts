import type { Request } from 'express';
import type { AuthUser } from '../../modules/auth/auth-user';
import { clientIp } from './client-ip';

/** Who did it, for security_audit_log: the signed-in admin (if the guard put one on the request), IP and agent. */
export interface RequestActor {
  adminUserId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
}

export function requestActor(req: Request, user: AuthUser | undefined): RequestActor {
  return {
    adminUserId: user?.id ?? null,
    ipAddress: clientIp(req) || null,
    userAgent: req.headers['user-agent'] ?? null,
  };
}
