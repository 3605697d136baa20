import {
  BadRequestException,
  ConflictException,
  GoneException,
  Inject,
  Injectable,
  NotFoundException,
  Optional,
  ServiceUnavailableException,
} from '@nestjs/common';
import { isUniqueViolation } from '../../common/utils/sql';
import { Clock } from '../../common/clock';
import { randomToken } from '../../common/utils/random-token';
import { AppMetrics, RedemptionOutcome } from '../../common/metrics';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { GeoService } from '../geo/geo.service';
import { JobQueue } from '../jobs/job-queue';
import { REDEMPTION_MAIL } from './order-mail';
import { stripManualPrefix } from '../license/entities/license-key.entity';
import { CodeGuessingService } from './code-guessing.service';
import { PoolAssignmentService } from './pool-assignment.service';
import { RedeemAgainRow, RedeemedRow, RedemptionRepository } from './redemption.repository';
import { RedeemVoucherDto } from './dto/redeem-voucher.dto';
import { GeoBlockedException, REDEEM_MESSAGES } from './redemption.errors';
import { DomainEvents } from '../../events/domain-events.service';
import { RedeemCheck, RedeemCheckVerdict } from './redeem-check';
import { RedeemRisk } from './redeem-risk';
import { RiskRefusal, RiskRefusedException, riskRefusedMessage } from './risk-refusal';

export interface RedeemResult {
  success: true;
  productName: string;
  successToken: string;
  redemptionId: string;
  isManualProcessing: boolean;
  /**
   * True when the same code and e-mail were redeemed before with the same Idempotency-Key within the token
   * lifetime: the answer is the same redemption with a fresh token (200, not 201) and nothing else was written but
   * the repeat's history row (docs/product.md §19.1).
   */
  repeated: boolean;
}

/** The audit action a repeated submission of a redemption is written with; its history tells it. */
export const REPEAT_ACTION = 'redemption.repeat';

/** What the request said about itself besides its body: who sent it and the redeem page's Idempotency-Key. */
export interface RedeemRequestMeta {
  ip: string;
  userAgent: string | null;
  idempotencyKey: string | null;
}

export interface SuccessTokenView {
  isManualProcessing: boolean;
  customerEmail: string;
  /** The customer's own code, for the page's resend dialog (docs/product.md §19.4). */
  voucherCode: string;
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
    private readonly guessing: CodeGuessingService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: AppMetrics,
    private readonly events: DomainEvents,
    private readonly refusal: RiskRefusal,
    @Optional() private readonly check?: RedeemCheck,
    @Optional() private readonly risk?: RedeemRisk,
  ) {}

  /** One redemption request, counted by outcome (`voucher_redemptions_total`). */
  async redeem(dto: RedeemVoucherDto, meta: RedeemRequestMeta): Promise<RedeemResult> {
    let outcome: RedemptionOutcome = 'error';
    try {
      const result = await this.redeemOnce(dto, meta);
      outcome = result.repeated ? 'repeated' : result.isManualProcessing ? 'manual' : 'redeemed';
      return result;
    } catch (err) {
      outcome = outcomeOf(err);
      throw err;
    } finally {
      this.metrics.redemptions.inc({ outcome });
    }
  }

  private async redeemOnce(dto: RedeemVoucherDto, meta: RedeemRequestMeta): Promise<RedeemResult> {
    const { ip } = meta;
    const country = this.geo.country(ip);
    if (this.geo.isBlocked(country)) throw new GeoBlockedException();
    // A connected product's live check (docs/product.md §24.6), before the code is claimed; nothing to ask: no await at
    // all.
    const checked = this.check?.beforeClaim(dto.voucherCode);
    if (checked) await this.refuseUnless(await checked, meta);
    // The risk rules (docs/product.md §25.1), before the code is claimed; every rule off: no await at all.
    const assessed = this.risk?.assess({ email: dto.email, phone: dto.phone || null, ip, country });
    const verdict = assessed && (await assessed);
    if (verdict?.action === 'refuse') await this.refusal.refuse(verdict, dto.voucherCode, meta);
    const heldRules =
      verdict?.action === 'review' ? verdict.findings.map(({ rule, evidence }) => ({ rule, evidence })) : null;

    const token = randomToken(32);
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
        idempotencyKey: meta.idempotencyKey,
        heldRules,
      });
    } catch (err) {
      await verdict?.undo();
      if (isUniqueViolation(err, 'uq_redemptions_customer_product')) {
        // Counts like an unknown code: else one valid code probes which e-mails bought the product (docs/product.md).
        await this.guessing.noteFailedGuess(ip, meta.userAgent);
        throw new ConflictException(REDEEM_MESSAGES.alreadyIssued);
      }
      // Two first-time redemptions of one code cannot both pass the claim; anything else is unexpected.
      throw err;
    }
    if (!rows.length) {
      await verdict?.undo();
      return this.redeemAgain(dto, token, meta);
    }

    const [{ id, name }] = rows;
    // Held for review (docs/product.md §25.2): no key, no order e-mail until staff approve it; the manual-processing page.
    let manual = rows[0].awaiting_license || rows[0].held;
    // No key after the product's pool start, or only held ones: the pool again from its beginning, waiting for held
    // keys (docs/architecture.md "The pool's start", "Keys under contention").
    // The order e-mail is queued by the workers' relay, which reads new redemptions' pending e-mails
    // (docs/architecture.md "E-mail (outbox)"); one whose key a second statement here assigned is queued here: its
    // `redeemed_at` is older than that statement's commit.
    if (rows[0].awaiting_license) {
      manual = !(await this.pool.assignFromPool(id));
      if (!manual) this.jobs.add(REDEMPTION_MAIL, { redemptionId: id });
    }
    // Committed (one statement): the consoles (throttled), the webhook outbox (nothing when no endpoint listens) and,
    // when a key left the pool (or none was left), the pool module's forecast check.
    await this.events.publish('redemption.created', {
      redemptionId: id,
      voucherCode: dto.voucherCode,
      productId: rows[0].product_id,
      productName: name,
      isLicenseManaged: rows[0].is_license_managed,
      isManualProcessing: manual,
      poolKeyAssigned: rows[0].is_license_managed && !manual,
    });
    if (rows[0].held) {
      await this.events.publish('redemption.held', {
        redemptionId: id,
        voucherCode: dto.voucherCode,
        productId: rows[0].product_id,
        productName: name,
        rules: (heldRules ?? []).map((r) => r.rule),
      });
    }
    return {
      success: true,
      productName: name,
      successToken: token,
      redemptionId: id,
      isManualProcessing: manual,
      repeated: false,
    };
  }

  /** The check's answer: claim the code, or answer as the code's own state would (misses count as guesses). */
  private async refuseUnless(verdict: RedeemCheckVerdict, meta: RedeemRequestMeta): Promise<void> {
    if (verdict === 'claim') return;
    if (verdict === 'void') throw new GoneException(REDEEM_MESSAGES.voidCode);
    if (verdict === 'unconfirmed') throw new ServiceUnavailableException(REDEEM_MESSAGES.unconfirmed);
    await this.guessing.noteFailedGuess(meta.ip, meta.userAgent);
    if (verdict === 'redeemed') throw new ConflictException(REDEEM_MESSAGES.usedCode);
    throw new NotFoundException(REDEEM_MESSAGES.unknownCode);
  }

  /**
   * Only reached when the claim found nothing, so the happy path stays one round trip: one more statement tells
   * why, or answers a double click, a refresh or a lost response (same code, same e-mail and the same redeem page's
   * Idempotency-Key, within the token lifetime) with a fresh token for the redemption already made: no second key,
   * e-mail or row. Code and e-mail alone get the 409 of any used code: staff see both side by side.
   */
  private async redeemAgain(dto: RedeemVoucherDto, token: string, meta: RedeemRequestMeta) {
    const row = await this.redemptions.redeemAgain({
      code: dto.voucherCode,
      email: dto.email,
      token,
      ttlHours: this.config.successTokenTtlHours,
      now: this.clock.now(),
      idempotencyKey: meta.idempotencyKey,
    });
    if (!row) {
      // Every "unknown code" counts towards blocking the address (docs/product.md §18.2).
      await this.guessing.noteFailedGuess(meta.ip, meta.userAgent);
      throw new NotFoundException(REDEEM_MESSAGES.unknownCode);
    }
    if (row.same_email_redemption_id) await this.recordRepeat(row, meta);
    if (row.repeated_redemption_id) {
      return {
        success: true as const,
        productName: row.product_name,
        successToken: token,
        redemptionId: row.repeated_redemption_id,
        isManualProcessing: row.awaiting_license === true,
        repeated: true,
      };
    }
    if (row.is_void) throw new GoneException(REDEEM_MESSAGES.voidCode);
    if (row.is_redeemed) throw new ConflictException(REDEEM_MESSAGES.usedCode);
    throw new BadRequestException(REDEEM_MESSAGES.inactiveProduct);
  }

  /**
   * A repeat (the code with the e-mail it was redeemed with), granted or refused, goes into the redemption's history
   * through the audit trail: who asked (address, browser) and why a refusal was one.
   */
  private async recordRepeat(row: RedeemAgainRow, meta: RedeemRequestMeta): Promise<void> {
    const granted = row.repeated_redemption_id !== null;
    const refusal = granted
      ? null
      : row.refunded
        ? 'refunded'
        : row.expired
          ? 'token-lifetime-over'
          : meta.idempotencyKey === null
            ? 'no-idempotency-key'
            : 'other-idempotency-key';
    await this.events.publish(REPEAT_ACTION, {
      success: granted,
      resource: 'redemption',
      resourceId: row.same_email_redemption_id,
      ipAddress: meta.ip,
      userAgent: meta.userAgent,
      details: { granted, refusal },
    });
  }

  /** The success page's view of a redemption; the licence is read live, so a later assignment shows up. */
  async successToken(token: string): Promise<SuccessTokenView> {
    const row = await this.redemptions.successTokenView(token);
    if (!row) throw new NotFoundException(REDEEM_MESSAGES.invalidToken);
    // Refunded since, or refused in review: the page is closed, no key shown (docs/product.md §19.3, §25.3).
    if (row.refunded) {
      throw new GoneException(
        row.refused_in_review ? riskRefusedMessage(this.config.supportEmail) : REDEEM_MESSAGES.refundedOrder,
      );
    }
    const manual: boolean = row.awaiting_license;
    const key = row.is_license_managed ? row.license_key : row.product_key;
    return {
      isManualProcessing: manual,
      customerEmail: row.customer_email,
      voucherCode: row.voucher_code,
      productName: row.product_name,
      licenseKey: manual || !key ? null : stripManualPrefix(key),
      downloadLink: manual ? '' : (row.license_link ?? row.product_link ?? ''),
    };
  }
}

function outcomeOf(err: unknown): RedemptionOutcome {
  if (err instanceof GeoBlockedException) return 'geo_blocked';
  if (err instanceof NotFoundException) return 'unknown_code';
  if (err instanceof GoneException) return 'void';
  if (err instanceof RiskRefusedException) return 'risk_refused';
  if (err instanceof ConflictException) {
    return err.message === REDEEM_MESSAGES.alreadyIssued ? 'already_issued' : 'already_redeemed';
  }
  if (err instanceof BadRequestException) return 'inactive_product';
  return 'error';
}
