import { HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { createHash, randomBytes } from 'crypto';
import { Clock } from '../../../common/clock';
import { AuthUser } from '../../../common/decorators/current-user.decorator';
import { Permission, permissionsOf } from '../../../common/permissions';
import { RequestMeta } from '../../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { AttemptStore } from '../../attempts/attempt-store';
import { API_TOKEN_MESSAGES, CreateApiTokenDto } from './api-token.dto';
import { ApiTokenRepository } from './api-token.repository';
import { DomainEvents } from '../../../events/domain-events.service';

export const API_TOKEN_PREFIX = 'ovr_';
const TOKEN_FORMAT = /^ovr_[A-Za-z0-9_-]{43}$/;

/** Only the SHA-256 of a token is stored: 256 random bits need no salt or slow hash, and the lookup stays exact. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function isApiToken(bearer: string): boolean {
  return bearer.startsWith(API_TOKEN_PREFIX);
}

/**
 * Integrations' API tokens (docs/auth.md "API tokens"): created by an admin with a subset of the data
 * permissions, shown once, stored hashed, revoked at once. A token acts for its creator: it stops when the
 * creator's account is deactivated, and never does more than the creator's role allows today (docs/product.md).
 */
@Injectable()
export class ApiTokenService {
  constructor(
    private readonly tokens: ApiTokenRepository,
    private readonly events: DomainEvents,
    private readonly store: AttemptStore,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(admin: AuthUser, dto: CreateApiTokenDto, meta: RequestMeta) {
    const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const name = dto.name.trim();
    const permissions = [...dto.permissions].sort();
    const created = await this.tokens.insert({
      name,
      tokenHash: hashApiToken(token),
      permissions,
      createdBy: admin.id,
      expiresInDays: dto.expiresInDays ?? 90,
    });
    await this.events.publish('api-token.create', {
      success: true,
      adminUserId: admin.id,
      resource: 'api_tokens',
      resourceId: created.id,
      ...meta,
      details: { name, permissions, expiresAt: created.expiresAt },
    });
    return { id: created.id, name, token, permissions, expiresAt: created.expiresAt };
  }

  list() {
    return this.tokens.list();
  }

  async revoke(admin: AuthUser, id: string, meta: RequestMeta): Promise<{ success: true }> {
    const revoked = await this.tokens.revoke(id);
    if (!revoked) throw new NotFoundException(API_TOKEN_MESSAGES.notFound);
    await this.events.publish('api-token.revoke', {
      success: true,
      adminUserId: admin.id,
      resource: 'api_tokens',
      resourceId: id,
      ...meta,
      details: { name: revoked.name },
    });
    return { success: true };
  }

  /** The caller behind a presented token, or null when it is malformed, unknown, revoked, expired or its creator inactive. */
  async authenticate(token: string): Promise<AuthUser | null> {
    if (!TOKEN_FORMAT.test(token)) return null;
    const live = await this.tokens.findLive(hashApiToken(token));
    if (!live) return null;
    const ceiling = permissionsOf(live.creatorRole);
    return {
      id: live.creatorId,
      username: live.creatorUsername,
      email: live.creatorEmail,
      role: 'api-token',
      permissions: live.permissions.filter((p): p is Permission => ceiling.includes(p as Permission)),
      sessionId: '',
      apiTokenId: live.id,
    };
  }

  /** API_TOKEN_RATE_LIMIT calls per token per minute, counted across instances (429 beyond). */
  async checkRateLimit(tokenId: string): Promise<void> {
    const limit = this.config.apiTokenRateLimit;
    if (limit === 0) return;
    const calls = await this.store.hit(`api-token:${tokenId}`, this.clock.now(), 60_000, limit);
    if (calls > limit) throw new HttpException(API_TOKEN_MESSAGES.rateLimited, HttpStatus.TOO_MANY_REQUESTS);
  }
}
