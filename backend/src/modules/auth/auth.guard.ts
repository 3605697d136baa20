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
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { AuthCustomer } from '../../common/decorators/customer-route.decorator';
import { CustomerTokenService } from './customer-token.service';
import { BlockCheckedRequest, BlockedIpService, CHECKED_BLOCK } from './blocked-ip.service';
import { ApiTokenService, isApiToken } from './api-tokens/api-token.service';
import { requestMeta } from '../../common/utils/request-actor';
import { routeAccess } from './route-access';
import { SessionService } from './session.service';
import { DomainEvents } from '../../events/domain-events.service';

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
 * codes, docs/product.md §18.5); `@Public()` passes; otherwise a valid access token of a live session or a live API
 * token `ovr_…` (401 if not; a token has its own rate limit, 429) and a `@RequirePermissions(...)` declaration the user satisfies (403 if not, audited).
 * `@CustomerRoute()` (the licence centre) takes a customer token only: a staff token or an API token there is 401, as a
 * customer token is on every staff route (docs/auth.md).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionService,
    private readonly blockedIps: BlockedIpService,
    private readonly events: DomainEvents,
    private readonly apiTokens: ApiTokenService,
    private readonly customers: CustomerTokenService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // The socket.io gateway authenticates its clients itself (docs/product.md §17.1, handleConnection).
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<BlockCheckedRequest & { user?: AuthUser; customer?: AuthCustomer }>();
    const meta = requestMeta(req);
    // The blocked-IP middleware looked a moment ago for the same address; an app built without it looks here.
    const checked = req[CHECKED_BLOCK];
    const block = checked !== undefined ? checked : await this.blockedIps.blockOf(meta.ipAddress);
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
    const user = isApiToken(token)
      ? await this.apiTokens.authenticate(token)
      : await this.sessions.verifyAccessToken(token);
    if (!user) throw new UnauthorizedException(AUTH_MESSAGES.invalidToken);
    req.user = user;
    if (user.apiTokenId) await this.apiTokens.checkRateLimit(user.apiTokenId);

    const missing = access ? access.filter((permission) => !user.permissions.includes(permission)) : null;
    // A role outside the matrix has no permission at all (docs/product.md §7.2), not even the signed-in-only routes.
    // An API token works on data routes only: never on the account's own routes (sessions, password, 2FA).
    const allowed =
      missing !== null &&
      missing.length === 0 &&
      user.permissions.length > 0 &&
      !(user.apiTokenId && access?.length === 0);
    const resource = `${req.method} ${req.route?.path ?? req.path}`.slice(0, 100);
    if (allowed && user.apiTokenId) {
      // Every call of an integration is on record with its token (docs/auth.md "API tokens").
      await this.events.publish('api-token.request', {
        success: true,
        adminUserId: user.id,
        resource,
        resourceId: user.apiTokenId,
        ipAddress: meta.ipAddress,
        userAgent: meta.userAgent,
      });
    }
    if (allowed) return true;
    await this.events.publish('permission.denied', {
      success: false,
      adminUserId: user.id,
      resource,
      resourceId: user.apiTokenId ?? null,
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent,
      details: {
        ...(!missing
          ? { role: user.role, reason: 'route declares no permission' }
          : user.permissions.length === 0
            ? { role: user.role, reason: 'role has no permissions' }
            : missing.length === 0
              ? { role: user.role, reason: 'API tokens cannot use account routes' }
              : { role: user.role, required: access, missing }),
        ...(user.apiTokenId && { apiTokenId: user.apiTokenId }),
      },
    });
    throw new ForbiddenException(AUTH_MESSAGES.forbidden);
  }
}
