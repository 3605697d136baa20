import { BadRequestException, ConflictException, Inject, Injectable } from '@nestjs/common';
import { toDataURL } from 'qrcode';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { DatabaseService } from '../../database/database.service';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { RequestMeta } from '../../common/utils/request-actor';
import { AdminRecoveryCodeRepository } from './admin-recovery-code.repository';
import { AdminUserRepository } from './admin-user.repository';
import { AttemptLimiterService } from './attempt-limiter.service';
import { verifyPassword } from './password';
import { PASSWORD_MESSAGES } from './password-policy';
import { hashRecoveryCode, newRecoveryCodes } from './recovery-codes';
import { newTotpSecret, otpauthUrl, totpStep } from './totp';
import { DomainEvents } from '../../events/domain-events.service';

export const TWO_FACTOR_MESSAGES = {
  invalidCode: 'Invalid two-factor code',
  alreadyEnabled: 'Two-factor authentication is already enabled',
  notSetUp: 'Set up two-factor authentication first',
  notEnabled: 'Two-factor authentication is not enabled',
  invalidRecoveryCode: 'Invalid recovery code',
} as const;

/**
 * TOTP enrolment (docs/product.md §13.3), the single-use check of codes, and the recovery codes: ten, handed out when
 * two-factor is enabled or regenerated, stored hashed, each accepted once at sign-in in place of a code.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly database: DatabaseService,
    private readonly users: AdminUserRepository,
    private readonly recoveryCodes: AdminRecoveryCodeRepository,
    private readonly events: DomainEvents,
    private readonly limiter: AttemptLimiterService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * True when the code is valid for the user's secret (±1 step) and its step is later than the last
   * accepted one; that step is then recorded, so a code (or an older one) is accepted once. The time step is
   * the Clock's, so a test fixes it rather than hoping the 30 s window does not roll over.
   */
  async consume(adminUserId: string, secret: string | null, code: string): Promise<boolean> {
    if (!secret) return false;
    const step = totpStep(code, secret, this.clock.now().getTime());
    if (step === null) return false;
    return this.users.claimTotpStep(adminUserId, step);
  }

  /** Needs the current password (docs/product.md §18.5); a wrong one counts against the user's 5 per 15 minutes. */
  async setup(user: AuthUser, currentPassword: string, meta: RequestMeta) {
    const row = await this.users.findById(user.id);
    if (row?.twoFactorEnabled) throw new ConflictException(TWO_FACTOR_MESSAGES.alreadyEnabled);
    await this.limiter.secretCheck(user.id, async () => {
      if (row && (await verifyPassword(currentPassword, { hash: row.passwordHash, salt: row.salt }))) return;
      await this.events.publish('2fa.setup', {
        success: false,
        adminUserId: user.id,
        resource: 'admin_users',
        resourceId: user.id,
        ...meta,
        details: { reason: 'current password incorrect' },
      });
      throw new BadRequestException({
        message: PASSWORD_MESSAGES.currentWrong,
        errors: [{ field: 'currentPassword', message: PASSWORD_MESSAGES.currentWrong }],
      });
    });
    const secret = newTotpSecret();
    if (!(await this.users.setTotpSecretUnlessEnabled(user.id, secret))) {
      throw new ConflictException(TWO_FACTOR_MESSAGES.alreadyEnabled);
    }
    const url = otpauthUrl(user.username, this.config.companyName, secret);
    await this.events.publish('2fa.setup', {
      success: true,
      adminUserId: user.id,
      resource: 'admin_users',
      resourceId: user.id,
      ...meta,
    });
    return { secret, otpauthUrl: url, qrCodeDataUrl: await toDataURL(url) };
  }

  async enable(user: AuthUser, code: string, meta: RequestMeta) {
    const state = await this.state(user.id);
    if (state.twoFactorEnabled) throw new ConflictException(TWO_FACTOR_MESSAGES.alreadyEnabled);
    if (!state.twoFactorSecret) throw new BadRequestException(TWO_FACTOR_MESSAGES.notSetUp);
    await this.limiter.secretCheck(user.id, () =>
      this.checkCode(user, state.twoFactorSecret, code, '2fa.enable', meta),
    );
    const recoveryCodes = newRecoveryCodes();
    await this.database.transaction(async () => {
      await this.users.enableTwoFactor(user.id);
      await this.recoveryCodes.replace(user.id, recoveryCodes.map(hashRecoveryCode));
      await this.events.publish('2fa.enable', {
        success: true,
        adminUserId: user.id,
        resource: 'admin_users',
        resourceId: user.id,
        ...meta,
        details: { recoveryCodes: recoveryCodes.length },
      });
    });
    return { twoFactorEnabled: true, recoveryCodes };
  }

  /** A new set of recovery codes for a current code (counted like enable/disable); the old set stops working. */
  async regenerateRecoveryCodes(user: AuthUser, code: string, meta: RequestMeta) {
    const state = await this.state(user.id);
    if (!state.twoFactorEnabled) throw new BadRequestException(TWO_FACTOR_MESSAGES.notEnabled);
    await this.limiter.secretCheck(user.id, () =>
      this.checkCode(user, state.twoFactorSecret, code, '2fa.recovery-codes', meta),
    );
    const recoveryCodes = newRecoveryCodes();
    await this.database.transaction(async () => {
      await this.recoveryCodes.replace(user.id, recoveryCodes.map(hashRecoveryCode));
      await this.events.publish('2fa.recovery-codes', {
        success: true,
        adminUserId: user.id,
        resource: 'admin_users',
        resourceId: user.id,
        ...meta,
        details: { recoveryCodes: recoveryCodes.length },
      });
    });
    return { recoveryCodes };
  }

  /** Spends a recovery code of the user: the unused codes left, or null when it is unknown or already used. */
  spendRecoveryCode(adminUserId: string, code: string): Promise<number | null> {
    return this.recoveryCodes.spend(adminUserId, hashRecoveryCode(code));
  }

  async disable(user: AuthUser, code: string, meta: RequestMeta) {
    const state = await this.state(user.id);
    if (!state.twoFactorEnabled) throw new BadRequestException(TWO_FACTOR_MESSAGES.notEnabled);
    await this.limiter.secretCheck(user.id, () =>
      this.checkCode(user, state.twoFactorSecret, code, '2fa.disable', meta),
    );
    await this.database.transaction(async () => {
      await this.users.disableTwoFactor(user.id);
      await this.recoveryCodes.deleteAllOf(user.id);
      await this.events.publish('2fa.disable', {
        success: true,
        adminUserId: user.id,
        resource: 'admin_users',
        resourceId: user.id,
        ...meta,
      });
    });
    return { twoFactorEnabled: false };
  }

  private async checkCode(
    user: AuthUser,
    secret: string | null,
    code: string,
    action: '2fa.enable' | '2fa.recovery-codes' | '2fa.disable',
    meta: RequestMeta,
  ) {
    if (await this.consume(user.id, secret, code)) return;
    await this.events.publish(action, {
      success: false,
      adminUserId: user.id,
      resource: 'admin_users',
      resourceId: user.id,
      ...meta,
      details: { reason: 'invalid code' },
    });
    throw new BadRequestException(TWO_FACTOR_MESSAGES.invalidCode);
  }

  private async state(adminUserId: string): Promise<{ twoFactorEnabled: boolean; twoFactorSecret: string | null }> {
    const user = await this.users.findById(adminUserId);
    return { twoFactorEnabled: user?.twoFactorEnabled ?? false, twoFactorSecret: user?.twoFactorSecret ?? null };
  }
}
