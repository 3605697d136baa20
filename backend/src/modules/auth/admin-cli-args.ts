import { USERNAME_PATTERN } from './password-policy';
import { Role } from '../../common/permissions';

export type AdminCommand =
  | { command: 'create'; username: string; role: Role; email?: string }
  | { command: (typeof USER_COMMANDS)[number]; username: string }
  | { command: 'rotate-data-key' };

export const ADMIN_CLI_USAGE = `Usage:
  npm run admin -- create --username <name> --role admin|operator|shop-manager [--email <address>]
  npm run admin -- reset-password --username <name>
  npm run admin -- deactivate --username <name>
  npm run admin -- activate --username <name>
  DATA_KEY=<new> DATA_KEY_PREVIOUS=<old> npm run admin -- rotate-data-key
A generated password is printed once. deactivate ends the account's sessions at once; activate undoes it.
rotate-data-key re-encrypts every licence key and sealed secret under DATA_KEY (resumable: run it again after an interruption).`;

export class CliUsageError extends Error {}

const USER_COMMANDS = ['reset-password', 'deactivate', 'activate'] as const;
/** A command that takes `--username` only. */
const isUserCommand = (command: string | undefined): command is (typeof USER_COMMANDS)[number] =>
  (USER_COMMANDS as readonly (string | undefined)[]).includes(command);

/** Parses `npm run admin -- …` arguments (after the script name). */
export function parseAdminArgs(args: string[]): AdminCommand {
  const [command, ...rest] = args;
  if (command === 'rotate-data-key') {
    if (rest.length) {
      throw new CliUsageError(`rotate-data-key takes no arguments (the keys come from DATA_KEY and DATA_KEY_PREVIOUS)`);
    }
    return { command };
  }
  const options: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new CliUsageError(`Unexpected argument "${arg}"`);
    const value = match[2] ?? rest[++i];
    if (value === undefined || value.startsWith('--')) throw new CliUsageError(`--${match[1]} needs a value`);
    options[match[1]] = value;
  }
  const allowed = command === 'create' ? ['username', 'role', 'email'] : ['username'];
  for (const name of Object.keys(options)) {
    if (!allowed.includes(name)) throw new CliUsageError(`Unknown option --${name}`);
  }
  if (command !== 'create' && !isUserCommand(command)) {
    throw new CliUsageError(command ? `Unknown command "${command}"` : 'No command given');
  }
  const username = options.username;
  if (!username) throw new CliUsageError('--username is required');
  if (!USERNAME_PATTERN.test(username) || username.length < 3 || username.length > 50) {
    throw new CliUsageError('--username must be 3-50 letters, digits or underscores');
  }
  if (isUserCommand(command)) return { command, username };

  const roles = Object.values(Role) as string[];
  if (!options.role) throw new CliUsageError('--role is required');
  if (!roles.includes(options.role)) throw new CliUsageError(`--role must be one of ${roles.join(', ')}`);
  const email = options.email?.trim().toLowerCase();
  if (email !== undefined && (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254)) {
    throw new CliUsageError('--email must be an e-mail address');
  }
  return { command, username, role: options.role as Role, email };
}
