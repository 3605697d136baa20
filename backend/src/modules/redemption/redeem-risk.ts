/** The risk rules (docs/product.md §25.1), each `{enabled, threshold?, action}`. */
export const RISK_RULES = ['emailPerDay', 'addressPerHour', 'disposableEmail', 'countryMismatch', 'blocklist'] as const;
export type RiskRule = (typeof RISK_RULES)[number];
export type RiskAction = 'review' | 'refuse';

/** What a redemption request says about its customer, as the rules read it. */
export interface RiskSubject {
  email: string;
  phone: string | null;
  ip: string;
  /** The address's country (the geo lookup), or null. */
  country: string | null;
}

/** One rule that matched, and what it saw. */
export interface RiskFinding {
  rule: RiskRule;
  action: RiskAction;
  evidence: Record<string, unknown>;
}

/** The rules' answer: go on, hold for a person, or refuse; `undo` takes back what the counting rules counted. */
export interface RiskVerdict {
  action: 'pass' | RiskAction;
  findings: RiskFinding[];
  undo(): Promise<void>;
}

/**
 * The risk rules' check of a redemption before its code is claimed, provided by the risk module. `assess` answers
 * undefined, synchronously, when every rule is off: the redemption then runs exactly as without the rules.
 */
export abstract class RedeemRisk {
  abstract assess(subject: RiskSubject): Promise<RiskVerdict> | undefined;

  /** Adds blocklist entries (a refused review's e-mail, address or phone). */
  abstract block(entries: Array<{ kind: 'email' | 'address' | 'phone'; value: string }>): Promise<void>;
}
