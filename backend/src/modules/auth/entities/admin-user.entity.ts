import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'admin_users' })
@Unique('uq_admin_users_username', ['username'])
@Unique('uq_admin_users_email', ['email'])
@Check('chk_admin_users_totp_sealed', 'two_factor_secret IS NULL OR two_factor_secret_ciphertext IS NULL')
@Unique('uq_admin_users_oidc_identity', ['oidcIssuer', 'oidcSubject'])
export class AdminUser {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 50 })
  username: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash: string;

  @Column({ type: 'varchar', length: 32 })
  salt: string;

  @Column({ type: 'varchar', length: 20, default: 'admin' })
  role: string;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /**
   * The TOTP secret in clear: only rows written before secrets were sealed, until the start-up step seals them
   * (AdminUserRepository.sealPlainTotpSecrets). The repository answers the opened secret here for a sealed one.
   */
  @Column({ name: 'two_factor_secret', type: 'varchar', length: 32, nullable: true })
  twoFactorSecret: string | null;

  /** The TOTP secret sealed under DATA_KEY (AES-256-GCM, DataCipher), or null without two-factor set up. */
  @Column({ name: 'two_factor_secret_ciphertext', type: 'bytea', nullable: true })
  twoFactorSecretCiphertext: Buffer | null;

  @Column({ name: 'two_factor_enabled', type: 'boolean', default: false })
  twoFactorEnabled: boolean;

  /** Time step of the last accepted TOTP code, so a code is accepted once. */
  @Column({ name: 'two_factor_last_step', type: 'bigint', nullable: true })
  twoFactorLastStep: string | null;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt: Date | null;

  @Column({ name: 'failed_login_attempts', type: 'int', default: 0 })
  failedLoginAttempts: number;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  /** Single sign-on identity (issuer + subject): the account is found by these, never by its username. */
  @Column({ name: 'oidc_issuer', type: 'varchar', length: 255, nullable: true })
  oidcIssuer: string | null;

  @Column({ name: 'oidc_subject', type: 'varchar', length: 255, nullable: true })
  oidcSubject: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
