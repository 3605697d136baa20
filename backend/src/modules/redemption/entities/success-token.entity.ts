import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Redemption } from './redemption.entity';

@Entity({ name: 'success_tokens' })
@Unique('uq_success_tokens_token', ['token'])
@Index('idx_success_tokens_redemption', ['redemptionId'])
export class SuccessToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 64 })
  token: string;

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
