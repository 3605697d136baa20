import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'products' })
@Unique('uq_products_name', ['name'])
export class Product {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'download_link', type: 'varchar', length: 2048, default: '' })
  downloadLink: string;

  @Column({ name: 'product_key', type: 'varchar', length: 100, nullable: true })
  productKey: string | null;

  @Column({ name: 'email_template', type: 'text', default: '' })
  emailTemplate: string;

  @Column({ name: 'email_subject', type: 'varchar', length: 500, default: '' })
  emailSubject: string;

  @Column({ type: 'varchar', length: 20, default: 'active' })
  status: string;

  @Column({ name: 'is_license_managed', type: 'boolean', default: false })
  isLicenseManaged: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
