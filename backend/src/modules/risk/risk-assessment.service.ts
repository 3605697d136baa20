import { Injectable } from '@nestjs/common';
import { addressGroup } from '../../common/utils/client-ip';
import { RedeemRisk, RiskFinding, RiskSubject, RiskVerdict } from '../redemption/redeem-risk';
import { RiskRepository } from './risk.repository';
import { COUNTING, emailDomain, isDisposable, normalPhone, phoneCountry, RiskRules, subjectHash } from './risk-rules';
import { RiskService } from './risk.service';

/**
 * The rules' check of a redemption (docs/product.md §25.1), before its code is claimed. With every rule off it answers
 * undefined at once (one look at the rules held in memory). Otherwise it reads only counters and indexed rows:
 * the counting rules add this redemption to their subject's bucket and read at most 24 (e-mail) or 12 (address
 * group) buckets by primary key, the blocklist matches by its unique index (and the few address entries).
 * A rule's count that is over its threshold flags it; the strictest action of the rules that matched wins.
 */
@Injectable()
export class RiskAssessmentService extends RedeemRisk {
  constructor(
    private readonly risk: RiskService,
    private readonly repository: RiskRepository,
  ) {
    super();
  }

  assess(subject: RiskSubject): Promise<RiskVerdict> | undefined {
    const held = this.risk.held();
    if (held && !held.anyOn) return undefined;
    return (held ? Promise.resolve(held) : this.risk.heldFresh()).then(({ rules, anyOn }) =>
      anyOn ? this.evaluate(rules, subject) : pass(),
    );
  }

  async block(entries: Array<{ kind: 'email' | 'address' | 'phone'; value: string }>): Promise<void> {
    const actor = { adminUserId: null, ipAddress: null, userAgent: null };
    for (const { kind, value } of entries) await this.risk.addToBlocklist(kind, value, actor);
  }

  private async evaluate(rules: RiskRules, subject: RiskSubject): Promise<RiskVerdict> {
    const findings: RiskFinding[] = [];
    const counted: Array<{ rule: keyof typeof COUNTING; subject: Buffer }> = [];
    const group = subject.ip ? addressGroup(subject.ip) : null;
    const counts: Array<[keyof typeof COUNTING, string | null]> = [
      ['emailPerDay', subject.email],
      ['addressPerHour', group],
    ];
    for (const [rule, value] of counts) {
      const setting = rules[rule];
      if (!setting.enabled || !value) continue;
      const hash = subjectHash(value);
      const total = await this.repository.count(rule, hash, COUNTING[rule].bucketMs, COUNTING[rule].windowMs);
      counted.push({ rule, subject: hash });
      if (total > (setting.threshold ?? 0)) {
        findings.push({
          rule,
          action: setting.action,
          evidence:
            rule === 'emailPerDay'
              ? { email: subject.email, redemptions24h: total }
              : { addressGroup: group, redemptions1h: total },
        });
      }
    }
    if (rules.disposableEmail.enabled && isDisposable(subject.email)) {
      findings.push({
        rule: 'disposableEmail',
        action: rules.disposableEmail.action,
        evidence: { domain: emailDomain(subject.email) },
      });
    }
    if (rules.countryMismatch.enabled) {
      const phone = phoneCountry(subject.phone);
      if (phone && subject.country && phone !== subject.country) {
        findings.push({
          rule: 'countryMismatch',
          action: rules.countryMismatch.action,
          evidence: { phoneCountry: phone, addressCountry: subject.country },
        });
      }
    }
    if (rules.blocklist.enabled) {
      const hits = await this.repository.hitBlocklist({
        email: subject.email,
        domain: emailDomain(subject.email),
        ip: subject.ip || null,
        phone: subject.phone ? normalPhone(subject.phone) : null,
      });
      if (hits.length) {
        findings.push({ rule: 'blocklist', action: rules.blocklist.action, evidence: { entries: hits } });
      }
    }
    const action = findings.some((f) => f.action === 'refuse') ? 'refuse' : findings.length ? 'review' : 'pass';
    return {
      action,
      findings,
      undo: async () => {
        for (const c of counted) await this.repository.uncount(c.rule, c.subject, COUNTING[c.rule].bucketMs);
      },
    };
  }
}

function pass(): RiskVerdict {
  return { action: 'pass', findings: [], undo: async () => undefined };
}
