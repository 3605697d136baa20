import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { prepareDatabase, StartedDatabase } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { dataSourceOptions } from './database/data-source-options';
import { AdminCommand, ADMIN_CLI_USAGE, CliUsageError, parseAdminArgs } from './modules/auth/admin-cli-args';
import { generatePassword, hashPassword } from './modules/auth/password';

/** `npm run admin -- create …` / `… reset-password …`: account administration for operators of the service. */
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
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 }, logging: false }).initialize();
    return await run(dataSource, command);
  } finally {
    await dataSource?.destroy();
    await database?.stop?.();
  }
}

async function run(db: DataSource, command: AdminCommand): Promise<number> {
  const password = generatePassword();
  const { hash, salt } = await hashPassword(password);
  if (command.command === 'create') {
    const email = command.email ?? `${command.username.toLowerCase()}@localhost`;
    const [created] = await db.query(
      `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING id`,
      [command.username, email, hash, salt, command.role],
    );
    if (!created) {
      console.error(`A user with the username "${command.username}" or the e-mail ${email} already exists.`);
      return 1;
    }
    await audit(db, 'cli.user-create', created.id, { username: command.username, role: command.role });
    console.log(`Created user "${command.username}" (role ${command.role}, e-mail ${email}).`);
  } else {
    const [[user]] = await db.query(
      `UPDATE admin_users SET password_hash = $2, salt = $3, failed_login_attempts = 0, locked_until = NULL, updated_at = now()
        WHERE username = $1 RETURNING id`,
      [command.username, hash, salt],
    );
    if (!user) {
      console.error(`No user named "${command.username}".`);
      return 1;
    }
    // A reset answers a lost or leaked password: every session of the account ends.
    await db.query(`UPDATE admin_sessions SET is_active = false WHERE admin_user_id = $1 AND is_active`, [user.id]);
    await audit(db, 'cli.reset-password', user.id, { username: command.username });
    console.log(`New password set for "${command.username}"; its sessions were ended and any lock lifted.`);
  }
  console.log(`Password: ${password}`);
  console.log('It is shown only now; sign in and change it.');
  return 0;
}

function audit(db: DataSource, action: string, userId: string, details: Record<string, unknown>) {
  return db.query(
    `INSERT INTO security_audit_log (admin_user_id, action, resource, resource_id, success, details)
     VALUES (NULL, $1, 'admin_users', $2, true, $3)`,
    [action, userId, JSON.stringify({ ...details, via: 'cli' })],
  );
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? `Configuration error: ${err.message}` : err);
    process.exit(1);
  },
);
