import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'products' })
@Unique('uq_products_name', ['name'])
@Check('chk_products_key_sealed', 'product_key IS NULL OR product_key_ciphertext IS NULL')
export class Product {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'download_link', type: 'varchar', length: 2048, default: '' })
  downloadLink: string;

  /**
   * A Mac product's shared key in clear: only rows written before keys were sealed, until the start-up step
   * seals them (ProductRepository.sealPlainKeys). Everything else reads `productKeyCiphertext` through the
   * repository, which opens it.
   */
  @Column({ name: 'product_key', type: 'varchar', length: 100, nullable: true })
  productKey: string | null;

  /** The shared key sealed under DATA_KEY (AES-256-GCM, DataCipher), or null when the product has none. */
  @Column({ name: 'product_key_ciphertext', type: 'bytea', nullable: true })
  productKeyCiphertext: Buffer | null;

  /**
   * A Mac product's licence package link (docs/product.md §12.7): the customer's License Activation package when the
   * product is not licence-managed (a licence-managed product's customers get their key's own download link).
   */
  @Column({ name: 'activation_link', type: 'varchar', length: 2048, nullable: true })
  activationLink: string | null;

  /** A Mac product's Office Removal Tool link; null: the vendor's own (docs/product.md §12.7). */
  @Column({ name: 'removal_tool_link', type: 'varchar', length: 2048, nullable: true })
  removalToolLink: string | null;

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
