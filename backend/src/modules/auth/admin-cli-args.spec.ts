import { CliUsageError, parseAdminArgs } from './admin-cli-args';

describe('parseAdminArgs', () => {
  it('reads create and reset-password', () => {
    expect(parseAdminArgs(['create', '--username', 'ops_1', '--role', 'operator'])).toEqual({
      command: 'create',
      username: 'ops_1',
      role: 'operator',
      email: undefined,
    });
    expect(
      parseAdminArgs(['create', '--username=shop', '--role=shop-manager', '--email', 'Shop@Example.com']),
    ).toMatchObject({
      role: 'shop-manager',
      email: 'shop@example.com',
    });
    expect(parseAdminArgs(['reset-password', '--username', 'admin'])).toEqual({
      command: 'reset-password',
      username: 'admin',
    });
  });

  it('reads deactivate and activate', () => {
    expect(parseAdminArgs(['deactivate', '--username', 'ops_1'])).toEqual({ command: 'deactivate', username: 'ops_1' });
    expect(parseAdminArgs(['activate', '--username=ops_1'])).toEqual({ command: 'activate', username: 'ops_1' });
  });

  it.each([
    [[], 'No command given'],
    [['drop'], 'Unknown command "drop"'],
    [['create', '--role', 'admin'], '--username is required'],
    [['create', '--username', 'x', '--role', 'admin'], '--username must be 3-50 letters, digits or underscores'],
    [['create', '--username', 'okname'], '--role is required'],
    [['create', '--username', 'okname', '--role', 'root'], '--role must be one of admin, operator, shop-manager'],
    [['create', '--username', 'okname', '--role'], '--role needs a value'],
    [['reset-password', '--username', 'okname', '--role', 'admin'], 'Unknown option --role'],
    [['deactivate'], '--username is required'],
    [['deactivate', '--username', 'okname', '--email', 'a@b.c'], 'Unknown option --email'],
    [['activate', '--username', 'no spaces'], '--username must be 3-50 letters, digits or underscores'],
  ])('refuses %j with "%s"', (args, message) => {
    expect(() => parseAdminArgs(args as string[])).toThrow(new CliUsageError(message));
  });
});
