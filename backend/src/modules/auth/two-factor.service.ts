import { BadRequestException, ConflictException, Inject, Injectable } from '@nestjs/common';
import { toDataURL } from 'qrcode';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuditService } from '../audit/audit.service';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { RequestMeta } from '../../common/utils/request-actor';
import { queryRows } from '../../common/utils/sql';
import { newTotpSecret, otpauthUrl, totpStep } from './totp';

export const TWO_FACTOR_MESSAGES = {
  invalidCode: 'Invalid two-factor code',
  alreadyEnabled: 'Two-factor authentication is already enabled',
  notSetUp: 'Set up two-factor authentication first',
  notEnabled: 'Two-factor authentication is not enabled',
} as const;

/** TOTP enrolment (DECISIONS §6) and the single-use check of codes. */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * True when the code is valid for the user's secret (±1 step) and its step is later than the last
   * accepted one; that step is then recorded, so a code (or an older one) is accepted once.
   */
  async consume(adminUserId: string, secret: string | null, code: string): Promise<boolean> {
    if (!secret) return false;
    const step = totpStep(code, secret);
    if (step === null) return false;
    const claimed = await queryRows(
      this.dataSource.manager,
      `UPDATE admin_users SET two_factor_last_step = $2
        WHERE id = $1 AND (two_factor_last_step IS NULL OR two_factor_last_step < $2) RETURNING id`,
      [adminUserId, step],
    );
    return claimed.length > 0;
  }

  async setup(user: AuthUser, meta: RequestMeta) {
    const secret = newTotpSecret();
    const updated = await queryRows(
      this.dataSource.manager,
      `UPDATE admin_users SET two_factor_secret = $2, updated_at = now() WHERE id = $1 AND NOT two_factor_enabled RETURNING id`,
      [user.id, secret],
    );
    if (!updated.length) throw new ConflictException(TWO_FACTOR_MESSAGES.alreadyEnabled);
    const url = otpauthUrl(user.username, this.config.companyName, secret);
    await this.audit.record({ action: '2fa.setup', success: true, adminUserId: user.id, resource: 'admin_users', resourceId: user.id, ...meta });
    return { secret, otpauthUrl: url, qrCodeDataUrl: await toDataURL(url) };
  }

  async enable(user: AuthUser, code: string, meta: RequestMeta) {
    const state = await this.state(user.id);
    if (state.two_factor_enabled) throw new ConflictException(TWO_FACTOR_MESSAGES.alreadyEnabled);
    if (!state.two_factor_secret) throw new BadRequestException(TWO_FACTOR_MESSAGES.notSetUp);
    await this.checkCode(user, state.two_factor_secret, code, '2fa.enable', meta);
    await this.dataSource.query(`UPDATE admin_users SET two_factor_enabled = true, updated_at = now() WHERE id = $1`, [user.id]);
    await this.audit.record({ action: '2fa.enable', success: true, adminUserId: user.id, resource: 'admin_users', resourceId: user.id, ...meta });
    return { twoFactorEnabled: true };
  }

  async disable(user: AuthUser, code: string, meta: RequestMeta) {
    const state = await this.state(user.id);
    if (!state.two_factor_enabled) throw new BadRequestException(TWO_FACTOR_MESSAGES.notEnabled);
    await this.checkCode(user, state.two_factor_secret, code, '2fa.disable', meta);
    await this.dataSource.query(
      `UPDATE admin_users SET two_factor_enabled = false, two_factor_secret = NULL, updated_at = now() WHERE id = $1`,
      [user.id],
    );
    await this.audit.record({ action: '2fa.disable', success: true, adminUserId: user.id, resource: 'admin_users', resourceId: user.id, ...meta });
    return { twoFactorEnabled: false };
  }

  private async checkCode(user: AuthUser, secret: string | null, code: string, action: string, meta: RequestMeta) {
    if (await this.consume(user.id, secret, code)) return;
    await this.audit.record({
      action,
      success: false,
      adminUserId: user.id,
      resource: 'admin_users',
      resourceId: user.id,
      ...meta,
      details: { reason: 'invalid code' },
    });
    throw new BadRequestException(TWO_FACTOR_MESSAGES.invalidCode);
  }

  private async state(adminUserId: string): Promise<{ two_factor_enabled: boolean; two_factor_secret: string | null }> {
    const [row] = await this.dataSource.query(
      `SELECT two_factor_enabled, two_factor_secret FROM admin_users WHERE id = $1`,
      [adminUserId],
    );
    return row;
  }
}
