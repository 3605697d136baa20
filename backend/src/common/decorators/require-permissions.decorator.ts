import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Permission } from '../permissions';

export const PERMISSIONS_KEY = 'permissions';

/**
 * The permissions a route needs (all of them). The global guard refuses every route that is neither
 * `@Public()` nor marked with this decorator.
 */
export const RequirePermissions = (...permissions: Permission[]) =>
  applyDecorators(
    SetMetadata(PERMISSIONS_KEY, permissions),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'No valid access token' }),
    ApiForbiddenResponse({ description: `Needs: ${permissions.join(', ') || 'a signed-in user'}` }),
  );
