import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** One row per (lower-cased) e-mail address, reused and updated by later redemptions. */
@Entity({ name: 'customers' })
@Unique('uq_customers_email', ['email'])
// Substring search in the redemption list: GIN (email gin_trgm_ops) and GIN ((first_name || ' ' || last_name)
// gin_trgm_ops), operator classes and an expression TypeORM cannot declare (migrations 1763700000410, …5000).
@Index('idx_customers_email_trgm', { synchronize: false })
@Index('idx_customers_full_name_trgm', { synchronize: false })
export class Customer {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'first_name', type: 'varchar', length: 50 })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 50 })
  lastName: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

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
}
