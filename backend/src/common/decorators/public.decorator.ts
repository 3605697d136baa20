import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { ApiErrorResponses } from '../openapi/api-responses';

export const IS_PUBLIC_KEY = 'isPublic';

/**
 * Opts a route out of authentication. Every other route is refused unless it names its permissions.
 * In OpenAPI the operation says so with an empty security requirement (`security: [{}]`), and declares the 403
 * every route answers an address blocked after repeated failed sign-ins.
 */
export const Public = () =>
  applyDecorators(
    SetMetadata(IS_PUBLIC_KEY, true),
    ApiSecurity({}),
    ApiErrorResponses({ 403: 'The client address is blocked after repeated failed sign-ins' }),
  );
