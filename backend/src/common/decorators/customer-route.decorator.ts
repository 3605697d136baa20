import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrorResponses } from '../openapi/api-responses';

export const IS_CUSTOMER_ROUTE_KEY = 'isCustomerRoute';

/** What the auth guard puts on `request.customer` for a signed-in customer of the licence centre. */
export interface AuthCustomer {
  /** The (lower-cased) e-mail address the session is scoped to. */
  email: string;
  /** The customer row the sign-in link was sent for; an erasure ends the session. */
  customerId: string;
  expiresAt: Date;
}

/**
 * A licence-centre route (docs/product.md §21): only a customer token (`POST /api/customer/session`)
 * passes, never a staff access token; and no staff route ever takes a customer token. In OpenAPI: bearer security
 * (the customer token), 401.
 */
export const CustomerRoute = () =>
  applyDecorators(
    SetMetadata(IS_CUSTOMER_ROUTE_KEY, true),
    ApiBearerAuth('customer'),
    ApiErrorResponses({ 401: 'No valid customer token (a staff token is refused here)' }),
  );

export const CurrentCustomer = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthCustomer =>
    ctx.switchToHttp().getRequest<Request & { customer: AuthCustomer }>().customer,
);
