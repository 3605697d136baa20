import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AuthCustomer } from '../../common/decorators/customer-route.decorator';

/** Life of a licence-centre session (docs/product.md §21). */
export const CUSTOMER_TOKEN_TTL_SECONDS = 24 * 60 * 60;
/** The audience of customer tokens: staff tokens carry none, so neither verifies as the other. */
const CUSTOMER_AUDIENCE = 'licence-centre';

interface CustomerTokenPayload {
  sub: string;
  email: string;
  typ: 'customer';
}

/**
 * Customer tokens of the licence centre: JWT HS256 under JWT_SECRET with their own type (`typ: customer`) and
 * audience, 24 hours, scoped to one e-mail address. The staff check (SessionService) takes only `typ: access`, this
 * one only `typ: customer` with the audience: one kind of token never opens the other kind's routes.
 */
@Injectable()
export class CustomerTokenService {
  constructor(private readonly jwt: JwtService) {}

  async issue(customerId: string, email: string, now: Date): Promise<{ customerToken: string; expiresAt: Date }> {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + CUSTOMER_TOKEN_TTL_SECONDS;
    const payload = { sub: customerId, email, typ: 'customer', iat, exp };
    const customerToken = await this.jwt.signAsync(payload, {
      algorithm: 'HS256',
      audience: CUSTOMER_AUDIENCE,
    });
    return { customerToken, expiresAt: new Date(exp * 1000) };
  }

  /** The customer behind a token, or null when it is not a valid, unexpired customer token. */
  async verify(token: string): Promise<AuthCustomer | null> {
    let payload: CustomerTokenPayload & { exp: number };
    try {
      payload = await this.jwt.verifyAsync(token, {
        algorithms: ['HS256'],
        audience: CUSTOMER_AUDIENCE,
      });
    } catch {
      return null;
    }
    if (payload.typ !== 'customer' || typeof payload.sub !== 'string' || typeof payload.email !== 'string') return null;
    return { customerId: payload.sub, email: payload.email, expiresAt: new Date(payload.exp * 1000) };
  }
}
