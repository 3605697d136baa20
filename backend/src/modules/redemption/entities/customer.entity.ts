import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One row per (lower-cased) e-mail address, shared by that address's redemptions (the Terms' one licence per e-mail
 * and product). Its other columns hold what the first redemption gave and are never rewritten: what a redemption
 * shows (name, phone, address, IP, country) is that redemption's own copy (docs/product.md §11.6).
 */
@Entity({ name: 'customers' })
// Unique, and the start of an e-mail: (email text_pattern_ops), an operator class TypeORM cannot declare (migration
// 1763843000000: one b-tree for the upsert's equality and the search's prefix).
@Index('uq_customers_email', { synchronize: false })
// Substring search in the redemption list: GIN (email gin_trgm_ops), an operator class TypeORM cannot declare
// (migration 1763700000410; the names' index moved to redemptions in 1763830000000).
@Index('idx_customers_email_trgm', { synchronize: false })
// The start of an e-mail's domain: ((split_part(email, '@', 2)) text_pattern_ops) (migration 1763841000000).
@Index('idx_customers_email_domain', { synchronize: false })
export class Customer {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'first_name', type: 'varchar', length: 50 })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 50 })
  lastName: string;

  /** Null once erased (docs/product.md §21.3): a later redemption with the address makes a new row. */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  phone: string | null;

  @Column({ type: 'varchar', length: 2, nullable: true })
  country: string | null;

  @Column({ name: 'zip_code', type: 'varchar', length: 20, nullable: true })
  zipCode: string | null;

  @Column({ name: 'ip_address', type: 'varchar', length: 45, nullable: true })
  ipAddress: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** When the customer's personal data was erased at their request (docs/product.md §21.3). */
  @Column({ name: 'erased_at', type: 'timestamptz', nullable: true })
  erasedAt: Date | null;
}
