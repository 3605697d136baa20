import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { prepareDatabase, StartedDatabase } from './app.factory';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { DataCipher } from './config/data-cipher';
import { DatabaseService } from './database/database.service';
import { dataSourceOptions } from './database/data-source-options';
import { cliAuditRecorder } from './modules/audit/cli-audit';
import { AdminSessionRepository } from './modules/auth/admin-session.repository';
import { AdminUserRepository } from './modules/auth/admin-user.repository';
import { AdminCommand, ADMIN_CLI_USAGE, CliUsageError, parseAdminArgs } from './modules/auth/admin-cli-args';
import { generatePassword, hashPassword } from './modules/auth/password';
import { countKeysNotUnderCurrent, rotateSealedKeys } from './keys-at-rest';

/**
 * `npm run admin -- create …` / `… reset-password …` / `… deactivate …` / `… activate …`: account administration for
 * operators of the service; `… rotate-data-key`: licence and product keys re-encrypted under a new DATA_KEY.
 */
async function main(): Promise<number> {
  let command: AdminCommand;
  try {
    command = parseAdminArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    console.error(`${err.message}\n\n${ADMIN_CLI_USAGE}`);
    return 2;
  }
  const config = loadConfig();
  let database: StartedDatabase | undefined;
  let dataSource: DataSource | undefined;
  try {
    database = await prepareDatabase(config);
    dataSource = await new DataSource({
      ...dataSourceOptions(database.url),
      extra: { max: 2 },
      logging: false,
    }).initialize();
    if (command.command === 'rotate-data-key') return await rotateDataKey(dataSource, config);
    return await run(dataSource, command, config);
  } finally {
    await dataSource?.destroy();
    await database?.stop?.();
  }
}

/**
 * Re-seals every licence key, product key, webhook secret, TOTP secret and marketplace secret under DATA_KEY
 * (docs/product.md §18.1);
 * DATA_KEY_PREVIOUS opens the keys not yet rotated. Batches of one statement each, rows already under DATA_KEY
 * skipped: an interrupted run is simply run again. The running service keeps working meanwhile when it too has both
 * keys. It ends by counting the rows still not under DATA_KEY (an instance still writing under the old key) and
 * fails (exit 1) unless there are none: only then may DATA_KEY_PREVIOUS go.
 */
async function rotateDataKey(dataSource: DataSource, config: AppConfig): Promise<number> {
  if (!config.dataKeyPrevious) {
    console.error('rotate-data-key needs DATA_KEY_PREVIOUS (the key in use until now) and DATA_KEY (the new one).');
    return 2;
  }
  const database = new DatabaseService(dataSource);
  const cipher = DataCipher.fromConfig(config);
  const rotated = await rotateSealedKeys(dataSource, cipher);
  const left = await countKeysNotUnderCurrent(dataSource, cipher);
  const remaining =
    left.licenseKeys + left.productKeys + left.webhookSecrets + left.totpSecrets + left.marketplaceSecrets;
  await cliAuditRecorder(database)({
    action: 'cli.rotate-data-key',
    success: remaining === 0,
    resource: 'license_keys',
    details: {
      rotated: rotated.licenseKeys,
      productKeys: rotated.productKeys,
      webhookSecrets: rotated.webhookSecrets,
      totpSecrets: rotated.totpSecrets,
      marketplaceSecrets: rotated.marketplaceSecrets,
      remaining: left,
    },
  });
  console.log(
    `Re-encrypted ${rotated.licenseKeys} licence keys, ${rotated.productKeys} product keys, ${rotated.webhookSecrets} webhook secrets, ${rotated.totpSecrets} TOTP secrets and ${rotated.marketplaceSecrets} marketplace secrets under DATA_KEY.`,
  );
  const describe = (c: typeof left) =>
    `${c.licenseKeys} licence keys, ${c.productKeys} product keys, ${c.webhookSecrets} webhook secrets, ${c.totpSecrets} TOTP secrets, ${c.marketplaceSecrets} marketplace secrets`;
  if (remaining > 0) {
    console.error(`Still not under DATA_KEY: ${describe(left)}.`);
    console.error(
      'Keep DATA_KEY_PREVIOUS, make sure every instance runs with the new DATA_KEY, and run rotate-data-key again.',
    );
    return 1;
  }
  console.log(`Still not under DATA_KEY: ${describe(left)}. Every key is now under DATA_KEY:`);
  console.log('remove DATA_KEY_PREVIOUS from the configuration and restart the service.');
  return 0;
}

async function run(
  dataSource: DataSource,
  command: Exclude<AdminCommand, { command: 'rotate-data-key' }>,
  config: AppConfig,
): Promise<number> {
  const database = new DatabaseService(dataSource);
  const users = new AdminUserRepository(database, DataCipher.fromConfig(config));
  const sessions = new AdminSessionRepository(database);
  const audit = cliAuditRecorder(database);
  const recorded = (action: string, userId: string, details: Record<string, unknown>) =>
    audit({ action, success: true, resource: 'admin_users', resourceId: userId, details });
  if (command.command === 'deactivate' || command.command === 'activate') {
    const active = command.command === 'activate';
    const changed = await database.transaction(async () => {
      const user = await users.setActive({ username: command.username }, active);
      if (!user) return null;
      // Deactivated: every session of the account ends at once (its API tokens stop with the account).
      const sessionsEnded = active ? 0 : await sessions.revokeAllOf(user.id);
      await recorded(`cli.user-${command.command}`, user.id, { username: user.username, sessionsEnded });
      return { sessionsEnded };
    });
    if (!changed) {
      console.error(`No user named "${command.username}".`);
      return 1;
    }
    console.log(
      active
        ? `Activated "${command.username}": it may sign in again.`
        : `Deactivated "${command.username}": ${changed.sessionsEnded} session(s) ended, its API tokens stopped. ` +
            `Undo with: npm run admin -- activate --username ${command.username}`,
    );
    return 0;
  }
  const password = generatePassword();
  const { hash, salt } = await hashPassword(password);

  if (command.command === 'create') {
    const email = command.email ?? `${command.username.toLowerCase()}@localhost`;
    const created = await database.transaction(async () => {
      const id = await users.insertIfAbsent({
        username: command.username,
        email,
        passwordHash: hash,
        salt,
        role: command.role,
      });
      if (id) await recorded('cli.user-create', id, { username: command.username, role: command.role });
      return id;
    });
    if (!created) {
      console.error(`A user with the username "${command.username}" or the e-mail ${email} already exists.`);
      return 1;
    }
    console.log(`Created user "${command.username}" (role ${command.role}, e-mail ${email}).`);
  } else {
    const reset = await database.transaction(async () => {
      const id = await users.resetPassword(command.username, hash, salt);
      if (!id) return null;
      // A reset answers a lost or leaked password: every session of the account ends.
      await sessions.revokeAllOf(id);
      await recorded('cli.reset-password', id, { username: command.username });
      return id;
    });
    if (!reset) {
      console.error(`No user named "${command.username}".`);
      return 1;
    }
    console.log(`New password set for "${command.username}"; its sessions were ended and any lock lifted.`);
  }
  console.log(`Password: ${password}`);
  console.log('It is shown only now; sign in and change it.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? `Configuration error: ${err.message}` : err);
    process.exit(1);
  },
);
