import { CanActivate, ExecutionContext, HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Clock } from '../../common/clock';
import { addressGroup, clientIp } from '../../common/utils/client-ip';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AttemptStore } from '../attempts/attempt-store';
import { REDEEM_MESSAGES } from './redemption.errors';

/**
 * REDEEM_RATE_LIMIT redeem attempts per address per minute (0 = off), counted in the store every
 * instance shares and grouped like the guess counter (IPv4 address, IPv6 /64).
 */
@Injectable()
export class RedeemRateLimitGuard implements CanActivate {
  constructor(
    private readonly store: AttemptStore,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const limit = this.config.redeemRateLimit;
    if (limit === 0) return true;
    const group = addressGroup(clientIp(context.switchToHttp().getRequest<Request>()));
    const attempts = await this.store.hit(`rate:${group}`, this.clock.now(), 60_000, limit);
    if (attempts > limit) throw new HttpException(REDEEM_MESSAGES.rateLimited, HttpStatus.TOO_MANY_REQUESTS);
    return true;
  }
}
