import { Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { Request } from 'express';
import { clientIp } from '../utils/client-ip';

/** Per-IP limit of redeem attempts (REDEEM_RATE_LIMIT per minute; 0 switches it off). */
@Injectable()
export class RedeemThrottlerGuard extends ThrottlerGuard {
  protected async getTracker(req: Record<string, any>): Promise<string> {
    return clientIp(req as Request);
  }
}
