import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AuditService } from '../audit/audit.service';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { AuthCustomer } from '../../common/decorators/customer-route.decorator';
import { CustomerTokenService } from './customer-token.service';
import { BlockedIpService } from './blocked-ip.service';
import { requestMeta } from '../../common/utils/request-actor';
import { routeAccess } from './route-access';
import { SessionService } from './session.service';

export const AUTH_MESSAGES = {
  required: 'Authentication required',
  invalidToken: 'Invalid or expired token',
  forbidden: 'You do not have permission to perform this action',
  ipBlocked: 'Access from your IP address has been blocked',
  guessingBlocked: 'Too many invalid voucher codes. Please contact support.',
} as const;

/**
 * The one global guard (APP_GUARD). Denies by default:
 * blocked IP → 403 on every route (429 `Too many invalid voucher codes…` when it was blocked for guessing
 * codes, DECISIONS §12); `@Public()` passes; otherwise a valid access token of a live session
 * (401 if not) and a `@RequirePermissions(...)` declaration the user satisfies (403 if not, audited).
 * `@CustomerRoute()` (the licence centre) takes a customer token only: a staff token there is 401, as a customer
 * token is on every staff route (docs/auth.md).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionService,
    private readonly blockedIps: BlockedIpService,
    private readonly audit: AuditService,
    private readonly customers: CustomerTokenService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // The socket.io gateway authenticates its clients itself (DECISIONS §11, handleConnection).
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request & { user?: AuthUser; customer?: AuthCustomer }>();
    const meta = requestMeta(req);
    const block = await this.blockedIps.blockOf(meta.ipAddress);
    if (block === 'guessing') throw new HttpException(AUTH_MESSAGES.guessingBlocked, HttpStatus.TOO_MANY_REQUESTS);
    if (block) throw new ForbiddenException(AUTH_MESSAGES.ipBlocked);

    const access = routeAccess(this.reflector, context.getHandler(), context.getClass());
    if (access === 'public') return true;

    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) throw new UnauthorizedException(AUTH_MESSAGES.required);
    if (access === 'customer') {
      const customer = await this.customers.verify(token);
      if (!customer) throw new UnauthorizedException(AUTH_MESSAGES.invalidToken);
      req.customer = customer;
      return true;
    }
    const user = await this.sessions.verifyAccessToken(token);
    if (!user) throw new UnauthorizedException(AUTH_MESSAGES.invalidToken);
    req.user = user;

    const missing = access ? access.filter((permission) => !user.permissions.includes(permission)) : null;
    // A role outside the matrix has no permission at all (DECISIONS §7), not even the signed-in-only routes.
    if (missing && missing.length === 0 && user.permissions.length > 0) return true;
    await this.audit.record({
      action: 'permission.denied',
      success: false,
      adminUserId: user.id,
      resource: `${req.method} ${req.route?.path ?? req.path}`.slice(0, 100),
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent,
      details: !missing
        ? { role: user.role, reason: 'route declares no permission' }
        : user.permissions.length === 0
          ? { role: user.role, reason: 'role has no permissions' }
          : { role: user.role, required: access, missing },
    });
    throw new ForbiddenException(AUTH_MESSAGES.forbidden);
  }
}
