import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** What the service does when the live check gets no answer in time (docs/product.md §24.6). */
export type OnUnreachable = 'accept' | 'refuse';

/** How the marketplace speaks: `generic` is the project's protocol, `appsumo` AppSumo's licensing webhooks. */
export const ADAPTER_KINDS = ['generic', 'appsumo'] as const;
export type AdapterKind = (typeof ADAPTER_KINDS)[number];

/**
 * A marketplace the products' vouchers were sold on (docs/product.md §24.1, docs/marketplaces.md). The signing secret
 * is sealed under DATA_KEY like licence keys (`DataCipher`): shown once at creation, opened only to sign or verify.
 */
@Entity({ name: 'marketplace_connections' })
@Check('chk_marketplace_connections_on_unreachable', `on_unreachable IN ('accept', 'refuse')`)
@Check('chk_marketplace_connections_adapter', `adapter IN ('generic', 'appsumo')`)
export class MarketplaceConnection {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_marketplace_connections' })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'base_url', type: 'varchar', length: 2000 })
  baseUrl: string;

  @Column({ type: 'varchar', length: 20, default: 'generic' })
  adapter: AdapterKind;

  @Column({ name: 'secret_ciphertext', type: 'bytea' })
  secretCiphertext: Buffer;

  @Column({ name: 'check_at_redeem', type: 'boolean', default: false })
  checkAtRedeem: boolean;

  @Column({ name: 'report_redemptions', type: 'boolean', default: true })
  reportRedemptions: boolean;

  @Column({ name: 'on_unreachable', type: 'varchar', length: 10, default: 'accept' })
  onUnreachable: OnUnreachable;

  /** 0: the marketplace pushes, no pull. */
  @Column({ name: 'pull_interval_seconds', type: 'int', default: 0 })
  pullIntervalSeconds: number;

  /** The pull's position: the last `cursor` the marketplace answered (null: from the beginning). */
  @Column({ name: 'pull_cursor', type: 'varchar', length: 500, nullable: true })
  pullCursor: string | null;

  @Column({ name: 'next_pull_at', type: 'timestamptz', nullable: true })
  nextPullAt: Date | null;

  @Column({ name: 'last_pull_at', type: 'timestamptz', nullable: true })
  lastPullAt: Date | null;

  /** Why the last pull failed (null after a pull that worked). */
  @Column({ name: 'last_pull_error', type: 'varchar', length: 500, nullable: true })
  lastPullError: string | null;

  @Column({ name: 'last_event_at', type: 'timestamptz', nullable: true })
  lastEventAt: Date | null;

  /** Codes `voucher.created` events added. */
  @Column({ name: 'codes_received', type: 'int', default: 0 })
  codesReceived: number;

  /**
   * Redemptions of products the connection no longer serves, counted while it served them. The status's `redeemed`
   * adds those of its products now: their redemptions less `marketplace_products.redemptions_before`.
   */
  @Column({ type: 'int', default: 0 })
  redeemed: number;

  /** Codes refunded or cancelled events voided or refunded. */
  @Column({ name: 'refunds_applied', type: 'int', default: 0 })
  refundsApplied: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
