import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Redemption } from './redemption.entity';

@Entity({ name: 'success_tokens' })
// The token itself is only ever in the redeem response and the page URL; the table keeps its SHA-256 (docs/product.md §18.4).
@Unique('uq_success_tokens_token_hash', ['tokenHash'])
@Index('idx_success_tokens_redemption', ['redemptionId'])
export class SuccessToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** SHA-256 of the token (32 bytes); the success page looks the token up by it. */
  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  @Column({ name: 'redemption_id', type: 'uuid' })
  redemptionId: string;

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
