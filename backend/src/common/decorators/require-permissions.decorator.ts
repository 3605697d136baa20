import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiErrorResponses } from '../openapi/api-responses';
import { Permission } from '../permissions';

export const PERMISSIONS_KEY = 'permissions';

/**
 * The permissions a route needs (all of them). The global guard refuses every route that is neither
 * `@Public()` nor marked with this decorator. In OpenAPI: bearer security, 401 and 403.
 */
export const RequirePermissions = (...permissions: Permission[]) =>
  applyDecorators(
    SetMetadata(PERMISSIONS_KEY, permissions),
    ApiBearerAuth(),
    ApiErrorResponses({ 401: 'No valid access token', 403: `Needs: ${permissions.join(', ') || 'a signed-in user'}` }),
  );
