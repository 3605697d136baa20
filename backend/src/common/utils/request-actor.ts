import type { Request } from 'express';
import type { AuthUser } from '../../modules/auth/auth-user';
import { requestMeta } from '../../modules/auth/request-meta';

/** Who did it, for security_audit_log: the signed-in admin (if the guard put one on the request), IP and agent. */
export interface RequestActor {
  adminUserId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
}

export function requestActor(req: Request, user: AuthUser | undefined): RequestActor {
  const meta = requestMeta(req);
  return { adminUserId: user?.id ?? null, ipAddress: meta.ipAddress || null, userAgent: meta.userAgent };
}
