import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { Permission } from '../permissions';

/** What the auth guard puts on `request.user` for a signed-in admin. */
export interface AuthUser {
  id: string;
  username: string;
  email: string;
  role: string;
  permissions: Permission[];
  sessionId: string;
  /** Set when the caller is an integration's API token (then `id` is the token's creator and sessionId empty). */
  apiTokenId?: string;
}

export const CurrentUser = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthUser | undefined =>
    ctx.switchToHttp().getRequest<Request & { user?: AuthUser }>().user,
);
