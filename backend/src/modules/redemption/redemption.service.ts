import { ConflictException, Inject, Injectable, NotFoundException, BadRequestException } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { QueryFailedError } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { GeoService } from '../geo/geo.service';
import { JobQueue } from '../jobs/job-queue';
import { stripManualPrefix } from '../license/entities/license-key.entity';
import { RealtimeService } from '../realtime/realtime.service';
import { CodeGuessingService } from './code-guessing.service';
import { PoolAssignmentService } from './pool-assignment.service';
import { RedeemedRow, RedemptionRepository } from './redemption.repository';
import { RedeemVoucherDto } from './dto/redeem-voucher.dto';
import { GeoBlockedException, REDEEM_MESSAGES } from './redemption.errors';

export interface RedeemResult {
  success: true;
  productName: string;
  successToken: string;
  redemptionId: string;
  isManualProcessing: boolean;
}

export interface SuccessTokenView {
  isManualProcessing: boolean;
  customerEmail: string;
  productName: string;
  licenseKey: string | null;
  downloadLink: string;
}

@Injectable()
export class RedemptionService {
  constructor(
    private readonly redemptions: RedemptionRepository,
    private readonly geo: GeoService,
    private readonly pool: PoolAssignmentService,
    private readonly jobs: JobQueue,
    private readonly realtime: RealtimeService,
    private readonly guessing: CodeGuessingService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async redeem(dto: RedeemVoucherDto, ip: string, userAgent: string | null = null): Promise<RedeemResult> {
    const country = this.geo.country(ip);
    if (this.geo.isBlocked(country)) throw new GeoBlockedException();

    const token = randomBytes(32).toString('base64url');
    let rows: RedeemedRow[];
    try {
      rows = await this.redemptions.redeem({
        code: dto.voucherCode,
        firstName: dto.firstName,
        lastName: dto.lastName,
        email: dto.email,
        phone: dto.phone || null,
        ip: ip || null,
        country,
        token,
        ttlHours: this.config.successTokenTtlHours,
      });
    } catch (err) {
      if (isUniqueViolation(err, 'uq_redemptions_customer_product')) {
        throw new ConflictException(REDEEM_MESSAGES.alreadyIssued);
      }
      // Two first-time redemptions of one code cannot both pass the claim; anything else is unexpected.
      throw err;
    }
    if (!rows.length) {
      const error = await this.whyNotRedeemable(dto.voucherCode);
      // Every "unknown code" counts towards blocking the address (DECISIONS §12).
      if (error instanceof NotFoundException) await this.guessing.noteUnknownCode(ip, userAgent);
      throw error;
    }

    const [{ id, name }] = rows;
    let manual = rows[0].awaiting_license;
    if (manual) manual = !(await this.pool.assignFromPool(id));
    if (!manual) this.jobs.enqueueRedemptionMail(id);
    // A redeemed code changes the product counts and stats; a pool key handed out is a licence assignment.
    this.realtime.emitThrottled(
      rows[0].is_license_managed && !manual ? 'licenseAssignment' : 'voucherUpdate',
      `Voucher ${dto.voucherCode} redeemed`,
    );
    return { success: true, productName: name, successToken: token, redemptionId: id, isManualProcessing: manual };
  }

  /** Only reached on the failure path, so the happy path stays one round trip. */
  private async whyNotRedeemable(code: string) {
    const row = await this.redemptions.redeemFailure(code);
    if (!row) return new NotFoundException(REDEEM_MESSAGES.unknownCode);
    if (row.isRedeemed) return new ConflictException(REDEEM_MESSAGES.usedCode);
    return new BadRequestException(REDEEM_MESSAGES.inactiveProduct);
  }

  /** The success page's view of a redemption; the licence is read live, so a later assignment shows up. */
  async successToken(token: string): Promise<SuccessTokenView> {
    const row = await this.redemptions.successTokenView(token);
    if (!row) throw new NotFoundException(REDEEM_MESSAGES.invalidToken);
    const manual: boolean = row.awaiting_license;
    const key = row.is_license_managed ? row.license_key : row.product_key;
    return {
      isManualProcessing: manual,
      customerEmail: row.customer_email,
      productName: row.product_name,
      licenseKey: manual || !key ? null : stripManualPrefix(key),
      downloadLink: manual ? '' : (row.license_link ?? row.product_link ?? ''),
    };
  }
}

function isUniqueViolation(err: unknown, constraint: string): boolean {
  // A pg error straight from the pool, or the same wrapped by TypeORM.
  const pgError = (err instanceof QueryFailedError ? err.driverError : err) as { code?: string; constraint?: string };
  return pgError?.code === '23505' && pgError.constraint === constraint;
}
