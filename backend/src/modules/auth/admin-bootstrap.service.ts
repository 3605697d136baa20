import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { generatePassword, hashPassword } from './password';

/**
 * First start: create the admin (ADMIN_* variables; a generated password is logged once) and an
 * `operator` account whose generated password is never shown: an admin sets it with reset-operator.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const [{ admins }] = await this.dataSource.query(`SELECT count(*)::int AS admins FROM admin_users WHERE role = 'admin'`);
    if (admins === 0) {
      const password = this.config.adminPassword ?? generatePassword();
      const created = await this.create(this.config.adminUsername, this.config.adminEmail, 'admin', password);
      if (created && !this.config.adminPassword) {
        this.logger.warn(
          `Created admin user "${this.config.adminUsername}" with password: ${password}  (shown once; change it after signing in)`,
        );
      }
    }
    const [{ operators }] = await this.dataSource.query(
      `SELECT count(*)::int AS operators FROM admin_users WHERE username = 'operator'`,
    );
    if (operators === 0) await this.create('operator', 'operator@localhost', 'operator', generatePassword());
  }

  private async create(username: string, email: string, role: string, password: string): Promise<boolean> {
    const { hash, salt } = await hashPassword(password);
    // ON CONFLICT: several API instances may boot at once.
    const rows = await this.dataSource.query(
      `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING id`,
      [username, email, hash, salt, role],
    );
    return rows.length > 0;
  }
}
