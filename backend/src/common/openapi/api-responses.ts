import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/*
 * OpenAPI building blocks shared by every controller (docs/api.md "Declaring a route in OpenAPI"): the error
 * body every route answers with, the small success bodies many routes share, and one decorator for a route's
 * error responses. `test/openapi.e2e-spec.ts` lints the generated document with Redocly's recommended rules
 * and checks that each operation declares a 2xx schema, its errors and (unless public) bearer security.
 */

export class FieldErrorResponse {
  @ApiProperty({ example: 'email' }) field: string;
  @ApiProperty({ example: 'Please enter a valid email address' }) message: string;
}

/** `{statusCode, message, error}` (docs/product.md §9.1); validation failures add `errors`. */
export class ErrorResponse {
  @ApiProperty({ example: 400 }) statusCode: number;
  @ApiProperty({ example: 'Please enter a valid email address' }) message: string;
  @ApiProperty({ example: 'Bad Request' }) error: string;
  @ApiPropertyOptional({ type: [FieldErrorResponse], description: 'Validation failures: every field with its message' })
  errors?: FieldErrorResponse[];
  @ApiPropertyOptional({
    example: 'GEO_BLOCKED',
    description: 'A machine-readable reason where the client needs one (451)',
  })
  code?: string;
}

export class MessageResponse {
  @ApiProperty({ example: 'Voucher code deleted successfully.' }) message: string;
}

export class SuccessMessageResponse {
  @ApiProperty({ enum: [true] }) success: boolean;
  @ApiProperty() message: string;
}

const DEFAULT_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid (validation failures list every field in `errors`)',
  401: 'No valid access token',
  403: 'The signed-in role lacks the permission',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'The request is too large',
  429: 'Too many requests',
  451: 'Not available in the client’s region',
  502: 'Every e-mail provider failed',
  503: 'Temporarily unavailable',
};

/**
 * The error responses of a route, each with the `ErrorResponse` schema: `@ApiErrorResponses(400, 404)`, or with
 * the route's own messages: `@ApiErrorResponses({ 404: 'Product not found.', 409: '…' })`. 401 and 403 come with
 * `@RequirePermissions`; public routes list what they answer.
 */
export function ApiErrorResponses(...responses: Array<number | Record<number, string>>) {
  const described = new Map<number, string>();
  for (const item of responses) {
    if (typeof item === 'number') described.set(item, DEFAULT_DESCRIPTIONS[item] ?? 'Error');
    else for (const [status, description] of Object.entries(item)) described.set(Number(status), description);
  }
  return applyDecorators(
    ApiExtraModels(ErrorResponse),
    ...[...described].map(([status, description]) =>
      ApiResponse({ status, description, schema: { $ref: getSchemaPath(ErrorResponse) } }),
    ),
  );
}

/** A file download (exports): CSV or plain text, streamed. */
export function ApiFileResponse(description: string) {
  const file = { schema: { type: 'string' as const, format: 'binary' } };
  return ApiResponse({ status: 200, description, content: { 'text/csv': file, 'text/plain': file } });
}
