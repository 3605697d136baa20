import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiErrorResponses } from '../openapi/api-responses';
import { Permission } from '../permissions';

export const PERMISSIONS_KEY = 'permissions';

/**
 * The permissions a route needs (all of them). The global guard refuses every route that is neither
 * `@Public()` nor marked with this decorator. In OpenAPI: bearer security, 401, 403 and 429 (an API token's own
 * rate limit, API_TOKEN_RATE_LIMIT a minute, applies to every route a token can call).
 */
export const RequirePermissions = (...permissions: Permission[]) =>
  applyDecorators(
    SetMetadata(PERMISSIONS_KEY, permissions),
    ApiBearerAuth(),
    ApiErrorResponses({
      401: 'No valid access token',
      403: `Needs: ${permissions.join(', ') || 'a signed-in user'}`,
      429: 'Too many requests with this API token',
    }),
  );
