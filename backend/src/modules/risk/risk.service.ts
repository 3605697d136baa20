import { BadRequestException, Injectable, NotFoundException, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { CachedValue } from '../../common/utils/cached-value';
import { RequestActor } from '../../common/utils/request-actor';
import { DomainEvents } from '../../events/domain-events.service';
import { RISK_RULES } from '../redemption/redeem-risk';
import { BlocklistKind } from './entities/risk-blocklist-entry.entity';
import { BlocklistRow, RiskRepository } from './risk.repository';
import { BlocklistMatcher, disposableDomains, normalPhone, readRules, RiskRules, validNetwork } from './risk-rules';

export const RISK_MESSAGES = {
  notFound: 'Blocklist entry not found.',
  removed: 'Blocklist entry removed.',
  badAddress: 'An address entry is an IPv4 or IPv6 address or a CIDR such as 203.0.113.0/24.',
  badEmail: 'An e-mail entry is an e-mail address.',
  badDomain: 'A domain entry is a domain such as example.com.',
  badPhone: 'A phone entry is a phone number.',
} as const;

/**
 * How long an instance keeps the rules and the blocklist before reading them again (another instance's change shows
 * up within it; this instance's at once).
 */
export const RULES_TTL_MS = 5_000;

/** The rules as the redemption path reads them: the rules, whether any is on, and the blocklist. */
export interface HeldRules {
  rules: RiskRules;
  anyOn: boolean;
  blocklist: BlocklistMatcher;
}

/** The risk rules' settings and blocklist (docs/product.md §25.1), each change audited. */
@Injectable()
export class RiskService implements OnModuleInit {
  private readonly cache: CachedValue<HeldRules>;

  constructor(
    private readonly repository: RiskRepository,
    private readonly events: DomainEvents,
    clock: Clock,
  ) {
    this.cache = new CachedValue(
      async () => {
        const [stored, entries] = await Promise.all([this.repository.rules(), this.repository.blocklist()]);
        const rules = readRules(stored);
        // The rule's list is read here, as the rule comes on, never on a redemption's path.
        if (rules.disposableEmail.enabled) disposableDomains();
        return {
          rules,
          anyOn: RISK_RULES.some((name) => rules[name].enabled),
          blocklist: new BlocklistMatcher(entries),
        };
      },
      () => RULES_TTL_MS,
      clock,
    );
  }

  async onModuleInit(): Promise<void> {
    await this.cache.get();
  }

  /**
   * The rules held in memory, synchronously, and a read in the background when they are older than RULES_TTL_MS;
   * undefined only before the first read.
   */
  held(): HeldRules | undefined {
    void this.cache.get().catch(() => undefined);
    return this.cache.current();
  }

  async heldFresh(): Promise<HeldRules> {
    return this.cache.get();
  }

  /** Counts a hit on each of the entries a redemption matched. */
  async countHits(ids: string[]): Promise<void> {
    await this.repository.countHits(ids);
  }

  async rules(): Promise<RiskRules> {
    return readRules(await this.repository.rules());
  }

  async saveRules(given: RiskRules, actor: RequestActor): Promise<RiskRules> {
    const rules = readRules(given as unknown as Record<string, unknown>);
    await this.repository.saveRules(rules);
    this.cache.invalidate();
    await this.cache.get();
    await this.events.publish('risk.rules-update', { ...actor, success: true, resource: 'risk', details: { rules } });
    return rules;
  }

  blocklist(): Promise<BlocklistRow[]> {
    return this.repository.blocklist();
  }

  async addToBlocklist(kind: BlocklistKind, value: string, actor: RequestActor): Promise<BlocklistRow> {
    const { row, created } = await this.repository.addToBlocklist(kind, validEntry(kind, value));
    if (created) {
      this.cache.invalidate();
      await this.events.publish('risk.blocklist-add', {
        ...actor,
        success: true,
        resource: 'risk-blocklist',
        resourceId: row.id,
        details: { kind: row.kind, value: row.value },
      });
    }
    return row;
  }

  async removeFromBlocklist(id: string, actor: RequestActor): Promise<{ success: true; message: string }> {
    const row = await this.repository.removeFromBlocklist(id);
    if (!row) throw new NotFoundException(RISK_MESSAGES.notFound);
    this.cache.invalidate();
    await this.events.publish('risk.blocklist-remove', {
      ...actor,
      success: true,
      resource: 'risk-blocklist',
      resourceId: id,
      details: { kind: row.kind, value: row.value, hits: row.hits },
    });
    return { success: true, message: RISK_MESSAGES.removed };
  }
}

/** The entry as the blocklist keeps it, or a 400 naming what a valid one looks like. */
function validEntry(kind: BlocklistKind, value: string): string {
  if (kind === 'address') {
    const network = validNetwork(value);
    if (!network) throw new BadRequestException(RISK_MESSAGES.badAddress);
    return network;
  }
  if (kind === 'email') {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) throw new BadRequestException(RISK_MESSAGES.badEmail);
    return value;
  }
  if (kind === 'domain') {
    const domain = value.replace(/^@/, '');
    if (!/^([a-z0-9-]+\.)+[a-z0-9-]{2,}$/.test(domain)) throw new BadRequestException(RISK_MESSAGES.badDomain);
    return domain;
  }
  const phone = normalPhone(value);
  if (!/^\+?\d{6,15}$/.test(phone)) throw new BadRequestException(RISK_MESSAGES.badPhone);
  return phone;
}
