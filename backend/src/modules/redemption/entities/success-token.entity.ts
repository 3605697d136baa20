import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { Redemption } from './redemption.entity';

@Entity({ name: 'success_tokens' })
// The token itself is only ever in the redeem response and the page URL; the table keeps its SHA-256 (docs/product.md §18.4).
@Unique('uq_success_tokens_token_hash', ['tokenHash'])
// The primary key (redemption_id, token_hash) also finds a redemption's tokens (migration 1763846000000).
export class SuccessToken {
  @PrimaryColumn({ name: 'redemption_id', type: 'uuid', primaryKeyConstraintName: 'success_tokens_pkey' })
  redemptionId: string;

  /** SHA-256 of the token (32 bytes); the success page looks the token up by it. */
  @PrimaryColumn({ name: 'token_hash', type: 'bytea', primaryKeyConstraintName: 'success_tokens_pkey' })
  tokenHash: Buffer;

  @ManyToOne(() => Redemption, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'redemption_id', foreignKeyConstraintName: 'success_tokens_redemption_id_fkey' })
  redemption?: Redemption;

  /** Read by the success page, as they were at redemption time (a product may be renamed later). */
  @Column({ name: 'customer_email', type: 'varchar', length: 254 })
  customerEmail: string;

  @Column({ name: 'product_name', type: 'varchar', length: 200 })
  productName: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
