import { Reflector } from '@nestjs/core';
import { IS_CUSTOMER_ROUTE_KEY } from '../../common/decorators/customer-route.decorator';
import { IS_PUBLIC_KEY } from '../../common/decorators/public.decorator';
import { PERMISSIONS_KEY } from '../../common/decorators/require-permissions.decorator';
import { Permission } from '../../common/permissions';

/**
 * What a route declares: public, a licence-centre route (a customer token, never a staff one), the permissions it
 * needs ([] = any signed-in staff user), or nothing (refused).
 */
export type RouteAccess = 'public' | 'customer' | Permission[] | undefined;

/** A controller class or handler method, as the Reflector takes it. */
type Target = Parameters<Reflector['get']>[1];

/** The handler's own declaration wins over its controller's. */
export function routeAccess(reflector: Reflector, handler: Target, controller: Target): RouteAccess {
  for (const target of [handler, controller]) {
    if (reflector.get<boolean>(IS_PUBLIC_KEY, target)) return 'public';
    if (reflector.get<boolean>(IS_CUSTOMER_ROUTE_KEY, target)) return 'customer';
    const permissions = reflector.get<Permission[] | undefined>(PERMISSIONS_KEY, target);
    if (permissions) return permissions;
  }
  return undefined;
}
