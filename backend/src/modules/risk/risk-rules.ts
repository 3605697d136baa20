import { createHash } from 'crypto';
import { BlockList, isIP } from 'net';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { RISK_RULES, RiskAction, RiskRule } from '../redemption/redeem-risk';

export const BLOCKLIST_KINDS = ['email', 'domain', 'address', 'phone'] as const;

export interface RuleSetting {
  enabled: boolean;
  threshold?: number;
  action: RiskAction;
}
export type RiskRules = Record<RiskRule, RuleSetting>;

/** What the settings row holds before an admin changes it (and what any rule missing from it reads as). */
export const RULES_OFF: RiskRules = {
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
};

/** The counting rules' windows. */
export const COUNTING = {
  emailPerDay: { windowMs: 24 * 3600_000 },
  addressPerHour: { windowMs: 3600_000 },
} as const;

/** The stored rules, each read as `{enabled, threshold?, action}`, a missing or broken one as its default. */
export function readRules(stored: Record<string, unknown>): RiskRules {
  const rules = {} as RiskRules;
  for (const name of RISK_RULES) {
    const value = stored[name] as Partial<RuleSetting> | undefined;
    const fallback = RULES_OFF[name];
    rules[name] = {
      enabled: value?.enabled === true,
      action: value?.action === 'refuse' || value?.action === 'review' ? value.action : fallback.action,
      ...(fallback.threshold !== undefined
        ? { threshold: Number.isInteger(value?.threshold) ? value!.threshold : fallback.threshold }
        : {}),
    };
  }
  return rules;
}

let disposable: Set<string> | undefined;

/**
 * The disposable-e-mail rule's domains: the package's list (a JSON array of about 120,000 domains, 2.4 MB), read when
 * first needed. The rules' loader reads it once the rule is on, so no redemption waits for it; a process whose rule
 * stays off never holds it (reading it takes 70 ms and 10 MB of heap, in every test file that starts the app).
 */
export function disposableDomains(): Set<string> {
  // The package is its list and ships no types.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  disposable ??= new Set<string>(require('disposable-email-domains') as string[]);
  return disposable;
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export function isDisposable(email: string): boolean {
  return disposableDomains().has(emailDomain(email));
}

/**
 * The phone number's country (ISO 3166 alpha-2, when the number says it: international form) and its blocklist form
 * (`normalPhone`), from one parse.
 */
export function phoneFacts(phone: string | null): { country: string | null; normal: string | null } {
  if (!phone) return { country: null, normal: null };
  const parsed = parsePhoneNumberFromString(phone);
  return { country: parsed?.country ?? null, normal: parsed?.number ?? phone.replace(/[^\d+]/g, '') };
}

/** A phone number as the blocklist keeps it: E.164 when it parses, else its digits with a leading +. */
export function normalPhone(phone: string): string {
  return phoneFacts(phone).normal ?? '';
}

/** A counter's subject: no e-mail or address is kept in clear in the counters. */
export function subjectHash(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** An address or CIDR (`203.0.113.0/24`, `2001:db8::/48`), or null when it is not one. */
export function validNetwork(value: string): string | null {
  const [address, bits, extra] = value.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return null;
  if (bits === undefined) return address;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return null;
  return `${address}/${Number(bits)}`;
}

/** A blocklist entry as the redemption path matches it. */
export interface BlocklistEntry {
  id: string;
  kind: (typeof BLOCKLIST_KINDS)[number];
  value: string;
}

/** What a redemption is matched against the blocklist with; null parts match nothing. */
export interface BlocklistProbe {
  email: string;
  domain: string;
  ip: string | null;
  phone: string | null;
}

/**
 * The blocklist held in memory (it is staff-made and small): e-mails, domains and phones by value, addresses by
 * containment in each entry's network (`network(inet)` form: `203.0.113.0/24`, `2001:db8::1/128`).
 */
export class BlocklistMatcher {
  private readonly byValue = new Map<string, BlocklistEntry>();
  private readonly networks: Array<{ entry: BlocklistEntry; list: BlockList }> = [];

  constructor(entries: BlocklistEntry[]) {
    for (const entry of entries) {
      if (entry.kind !== 'address') {
        this.byValue.set(`${entry.kind}:${entry.value}`, entry);
        continue;
      }
      const [address, bits] = entry.value.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      const list = new BlockList();
      list.addSubnet(address, Number(bits ?? (family === 'ipv6' ? 128 : 32)), family);
      this.networks.push({ entry, list });
    }
  }

  match(probe: BlocklistProbe): BlocklistEntry[] {
    const found: BlocklistEntry[] = [];
    for (const [kind, value] of [
      ['email', probe.email],
      ['domain', probe.domain],
      ['phone', probe.phone],
    ] as const) {
      const entry = value === null ? undefined : this.byValue.get(`${kind}:${value}`);
      if (entry) found.push(entry);
    }
    const family = probe.ip ? isIP(probe.ip) : 0;
    if (family) {
      const type = family === 6 ? 'ipv6' : 'ipv4';
      for (const { entry, list } of this.networks) if (list.check(probe.ip!, type)) found.push(entry);
    }
    return found;
  }
}
