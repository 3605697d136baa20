import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AdminUserRepository } from './admin-user.repository';
import { generatePassword, hashPassword } from './password';

/**
 * First start: create the admin (ADMIN_* variables; a generated password is logged once) and an
 * `operator` account whose generated password is never shown: an admin sets it with reset-operator.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');

  constructor(
    private readonly users: AdminUserRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The password generated at this start for a new admin, until the start-up banner takes it (main.ts). */
  private generated?: string;

  /** The generated admin password of this start, once: the start-up banner prints it last, where it is found. */
  takeGeneratedPassword(): { username: string; password: string } | undefined {
    const password = this.generated;
    this.generated = undefined;
    return password === undefined ? undefined : { username: this.config.adminUsername, password };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.users.existsWithRole('admin'))) {
      const password = this.config.adminPassword ?? generatePassword();
      const created = await this.create(this.config.adminUsername, this.config.adminEmail, 'admin', password);
      if (created && !this.config.adminPassword) {
        this.generated = password;
        this.logger.warn(
          `Created admin user "${this.config.adminUsername}" with password: ${password}  (shown once; change it after signing in)`,
        );
      }
    }
    if (!(await this.users.existsWithUsername('operator'))) {
      await this.create('operator', 'operator@localhost', 'operator', generatePassword());
    }
  }

  private async create(username: string, email: string, role: string, password: string): Promise<boolean> {
    const { hash, salt } = await hashPassword(password);
    // ON CONFLICT: several API instances may boot at once.
    return (await this.users.insertIfAbsent({ username, email, passwordHash: hash, salt, role })) !== null;
  }
}
