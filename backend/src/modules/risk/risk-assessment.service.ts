import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { addressGroup } from '../../common/utils/client-ip';
import { AttemptStore } from '../attempts/attempt-store';
import { RedeemRisk, RiskFinding, RiskSubject, RiskVerdict } from '../redemption/redeem-risk';
import { COUNTING, emailDomain, isDisposable, phoneFacts, subjectHash } from './risk-rules';
import { HeldRules, RiskService } from './risk.service';

/**
 * The rules' check of a redemption (docs/product.md §25.1), before its code is claimed. With every rule off it answers
 * undefined at once (one look at the rules held in memory). Otherwise nothing of it reads or writes PostgreSQL on a
 * redemption no entry matches: the counting rules add this redemption to their subject's sliding window in the
 * attempt store every instance shares (Redis; one round trip for both, atomic per subject), and the blocklist is
 * matched in memory (held with the rules), a hit counted in its row. A rule's count that is over its threshold flags
 * it; the strictest action of the rules that matched wins.
 */
@Injectable()
export class RiskAssessmentService extends RedeemRisk {
  constructor(
    private readonly risk: RiskService,
    private readonly attempts: AttemptStore,
    private readonly clock: Clock,
  ) {
    super();
  }

  assess(subject: RiskSubject): Promise<RiskVerdict> | undefined {
    const held = this.risk.held();
    if (held && !held.anyOn) return undefined;
    return (held ? Promise.resolve(held) : this.risk.heldFresh()).then((fresh) =>
      fresh.anyOn ? this.evaluate(fresh, subject) : pass(),
    );
  }

  async block(entries: Array<{ kind: 'email' | 'address' | 'phone'; value: string }>): Promise<void> {
    const actor = { adminUserId: null, ipAddress: null, userAgent: null };
    for (const { kind, value } of entries) await this.risk.addToBlocklist(kind, value, actor);
  }

  private async evaluate({ rules, blocklist }: HeldRules, subject: RiskSubject): Promise<RiskVerdict> {
    const findings: RiskFinding[] = [];
    const group = subject.ip ? addressGroup(subject.ip) : null;
    const now = this.clock.now();
    const counts = (
      [
        ['emailPerDay', subject.email],
        ['addressPerHour', group],
      ] as const
    ).filter(([rule, value]) => rules[rule].enabled && value);
    const taken = counts.length
      ? await this.attempts.take(
          counts.map(([rule, value]) => ({
            key: `risk:${rule}:${subjectHash(value!).toString('base64url')}`,
            windowMs: COUNTING[rule].windowMs,
          })),
          now,
        )
      : undefined;
    counts.forEach(([rule], i) => {
      const total = taken!.totals[i];
      if (total <= (rules[rule].threshold ?? 0)) return;
      findings.push({
        rule,
        action: rules[rule].action,
        evidence:
          rule === 'emailPerDay'
            ? { email: subject.email, redemptions24h: total }
            : { addressGroup: group, redemptions1h: total },
      });
    });
    if (rules.disposableEmail.enabled && isDisposable(subject.email)) {
      findings.push({
        rule: 'disposableEmail',
        action: rules.disposableEmail.action,
        evidence: { domain: emailDomain(subject.email) },
      });
    }
    const phoneFact = phoneFacts(subject.phone);
    if (rules.countryMismatch.enabled) {
      const phone = phoneFact.country;
      if (phone && subject.country && phone !== subject.country) {
        findings.push({
          rule: 'countryMismatch',
          action: rules.countryMismatch.action,
          evidence: { phoneCountry: phone, addressCountry: subject.country },
        });
      }
    }
    if (rules.blocklist.enabled) {
      const hits = blocklist.match({
        email: subject.email,
        domain: emailDomain(subject.email),
        ip: subject.ip || null,
        phone: phoneFact.normal,
      });
      if (hits.length) {
        await this.risk.countHits(hits.map((h) => h.id));
        findings.push({
          rule: 'blocklist',
          action: rules.blocklist.action,
          evidence: { entries: hits.map(({ kind, value }) => ({ kind, value })) },
        });
      }
    }
    const action = findings.some((f) => f.action === 'refuse') ? 'refuse' : findings.length ? 'review' : 'pass';
    return {
      action,
      findings,
      undo: async () => {
        await taken?.takeBack();
      },
    };
  }
}

function pass(): RiskVerdict {
  return { action: 'pass', findings: [], undo: async () => undefined };
}
