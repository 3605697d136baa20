import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { Permission } from './permissions';

/** What the auth guard puts on `request.user` for a signed-in admin. */
export interface AuthUser {
  id: string;
  username: string;
  email: string;
  role: string;
  permissions: Permission[];
  sessionId: string;
}

/** Payload of an access token: HS256, 15 minutes. The session must still be active for it to work. */
export interface AccessTokenPayload {
  sub: string;
  sid: string;
  typ: 'access';
}

export const CurrentUser = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthUser | undefined =>
    ctx.switchToHttp().getRequest<Request & { user?: AuthUser }>().user,
);
