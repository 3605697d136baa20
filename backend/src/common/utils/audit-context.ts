import type { Request } from 'express';
import type { AuthUser } from '../../modules/auth/auth-user';
import { clientIp } from './client-ip';

/** Who did it and from where, for `AuditService.record`. The user is absent only on routes without the guard. */
export function auditContext(req: Request, user: AuthUser | undefined) {
  return {
    adminUserId: user?.id ?? null,
    ipAddress: clientIp(req) || null,
    userAgent: (req.headers['user-agent'] as string | undefined) ?? null,
  };
}

export type AuditContext = ReturnType<typeof auditContext>;
