import { HttpException, HttpStatus, Inject, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { Clock } from '../../common/clock';
import { addressGroup } from '../../common/utils/client-ip';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DatabaseService } from '../../database/database.service';
import { AttemptStore } from '../attempts/attempt-store';
import { CustomerTokenService } from '../auth/customer-token.service';
import { JobQueue } from '../jobs/job-queue';
import { EmailLogRepository } from '../mail/email-log.repository';
import { MailTransportService } from '../mail/mail-transport.service';
import { DeliveryOutcome, RetryableMailError } from '../mail/redemption-mail.service';
import { escapeHtml, htmlToText } from '../mail/template';
import { CustomerDataRepository } from '../redemption/customer-data.repository';
import { AccessLinkRepository } from './access-link.repository';
import { SEND_ACCESS_LINK } from './customer-centre.jobs';
import { DomainEvents } from '../../events/domain-events.service';

/** The one answer of `POST /api/customer/access`, whatever the address (docs/product.md §21). */
export const ACCESS_ANSWER = {
  message: 'If licences were issued to this e-mail address, a sign-in link is on its way.',
} as const;
export const LINK_EXPIRED = 'This sign-in link has expired. Please request a new one.';
/** The answer beyond an address group's budget of link requests (AccessLinkService.request). */
export const ACCESS_REQUESTS_LIMITED = 'Too many sign-in link requests from your address. Please try again later.';
/** At most this many sign-in links per address per hour. */
export const LINKS_PER_HOUR = 3;
/** A sign-in link is valid this long after it was sent. */
export const LINK_VALID_MINUTES = 30;
/** Sign-in link rows are deleted this long after they were asked for (the hourly limit needs one hour). */
const LINK_RETENTION_HOURS = 24;

/**
 * The licence centre's sign-in by e-mail link (docs/product.md §21). Neither the answer nor the work of the request
 * tells whether the address has licences: every request counts against the client's address group in a budget of its
 * own and writes one outbox row; the job decides (an address with licences gets a link, at most LINKS_PER_HOUR an
 * hour: it makes the token, stores its hash and sends it; any other row is deleted). The link, used once within
 * LINK_VALID_MINUTES, opens a 24-hour customer session scoped to the address.
 */
@Injectable()
export class AccessLinkService {
  private readonly logger = new Logger(AccessLinkService.name);

  constructor(
    private readonly links: AccessLinkRepository,
    private readonly customers: CustomerDataRepository,
    private readonly attempts: AttemptStore,
    private readonly database: DatabaseService,
    private readonly tokens: CustomerTokenService,
    private readonly transport: MailTransportService,
    private readonly emailLogs: EmailLogRepository,
    private readonly jobs: JobQueue,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The same steps whatever the address: one count in the client's budget (REDEEM_GUESS_LIMIT requests per
   * REDEEM_GUESS_WINDOW_MINUTES per address group, apart from the guessing block's count; beyond it 429), one outbox
   * row, one job. Whether an e-mail goes out is the job's decision (deliver).
   */
  async request(email: string, ip: string): Promise<typeof ACCESS_ANSWER> {
    const { redeemGuessLimit: limit, redeemGuessWindowMinutes: minutes } = this.config;
    if (limit > 0) {
      const key = `access:${addressGroup(ip)}`;
      const count = await this.attempts.hit(key, this.clock.now(), minutes * 60_000, limit);
      if (count > limit) throw new HttpException(ACCESS_REQUESTS_LIMITED, HttpStatus.TOO_MANY_REQUESTS);
    }
    const linkId = await this.links.insertPending(email);
    this.jobs.add(SEND_ACCESS_LINK, { linkId });
    return ACCESS_ANSWER;
  }

  /** Spends a link for a customer session; a spent, expired or unknown link (or an erased address) is 401. */
  async openSession(token: string): Promise<{ customerToken: string; email: string; expiresAt: Date }> {
    const email = await this.links.spend(token);
    const customerId = email && (await this.customers.customerWithRedemptions(email));
    if (!email || !customerId) throw new UnauthorizedException(LINK_EXPIRED);
    const issued = await this.tokens.issue(customerId, email, this.clock.now());
    return { ...issued, email };
  }

  /** One send of one link; throws RetryableMailError while attempts remain, so the queue retries with backoff. */
  async deliver(linkId: string, attempt: number, maxAttempts: number): Promise<DeliveryOutcome> {
    const token = randomBytes(32).toString('base64url');
    const link = await this.claimForSend(linkId, token);
    if (!link) return 'skipped';
    const { subject, html } = this.linkMail(token);
    const attempts = await this.transport.send({ to: link.email, subject, html, text: htmlToText(html) });
    await this.emailLogs.logAttempts(null, link.email, subject, attempts);
    const delivered = attempts.some((a) => a.ok);
    const last = attempt >= maxAttempts;
    await this.links.finish(linkId, delivered ? 'sent' : last ? 'failed' : 'pending');
    if (delivered) return 'sent';
    if (last) {
      this.logger.error(`Sign-in link ${linkId} failed after ${attempt} attempts`);
      return 'failed';
    }
    throw new RetryableMailError(attempts.map((a) => `${a.provider}: ${a.error}`).join('; '));
  }

  /**
   * Claims a link for this send. Its first send decides: an address without licences (or erased meanwhile) and one
   * past LINKS_PER_HOUR lose the row; the decision and its audit row (the customer's, without the request's address)
   * are one transaction, so concurrent requests of one address are decided one after the other. A retry just claims.
   */
  private async claimForSend(linkId: string, token: string): Promise<{ email: string } | undefined> {
    const { mailClaimSeconds } = this.config;
    const undecided = await this.links.undecided(linkId);
    if (!undecided) return this.links.claim(linkId, mailClaimSeconds, token, LINK_VALID_MINUTES);
    const customerId = await this.customers.customerWithRedemptions(undecided.email);
    if (!customerId) {
      await this.links.discard(linkId);
      return undefined;
    }
    return this.database.transaction(async () => {
      const claim = { claimSeconds: mailClaimSeconds, token, validMinutes: LINK_VALID_MINUTES };
      const outcome = await this.links.claimFirstWithinLimit(linkId, undecided.email, LINKS_PER_HOUR, claim);
      if (outcome === 'gone') return undefined;
      if (outcome === 'limit') this.logger.log(`Sign-in link limit reached for customer ${customerId}`);
      await this.events.publish(outcome === 'limit' ? PRIVACY_ACTIONS.linkLimit : PRIVACY_ACTIONS.linkSent, {
        success: outcome !== 'limit',
        resource: 'customer',
        resourceId: customerId,
        details: outcome === 'limit' ? { reason: 'limit', limit: LINKS_PER_HOUR } : null,
      });
      return outcome === 'limit' ? undefined : outcome;
    });
  }

  /** Retention: sign-in links go a day after they were asked for (they hold the address). */
  deleteOld(batch: number): Promise<number> {
    return this.links.deleteOlderThan(LINK_RETENTION_HOURS, batch);
  }

  /** Pending links whose job was lost (Redis down, a worker died). */
  findStalePending(olderThanMs: number, limit = 500): Promise<string[]> {
    return this.links.findStalePending(olderThanMs, limit);
  }

  private linkMail(token: string): { subject: string; html: string } {
    const url = `${this.config.publicUrl}/my-licences?token=${encodeURIComponent(token)}`;
    const subject = `Sign in to your licences – ${this.config.companyName}`;
    const html =
      `<p>Hello,</p><p>Someone (we hope you) asked to see the licences issued to this e-mail address. ` +
      `Open this link within ${LINK_VALID_MINUTES} minutes to sign in; it works once:</p>` +
      `<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>` +
      `<p>If you did not ask for it, ignore this e-mail: nothing happens without the link.</p>` +
      `<p>${escapeHtml(this.config.companyName)} · ${escapeHtml(this.config.supportEmail)}</p>`;
    return { subject, html };
  }
}

/** The audit actions of the licence centre: Settings → Privacy requests lists them (no personal data in them). */
export const PRIVACY_ACTIONS = {
  linkSent: 'customer.access-link',
  linkLimit: 'customer.access-link-limit',
  dataExport: 'customer.data-export',
  erasure: 'customer.erasure',
} as const;
