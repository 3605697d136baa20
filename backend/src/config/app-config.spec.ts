import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'ovr-config-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env });

  it('applies the documented defaults', () => {
    const config = load({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      redisUrl: undefined,
      workersInApi: true,
      embeddedWorker: true,
      adminUsername: 'admin',
      adminEmail: 'admin@localhost',
      mailFrom: 'Office Licences <no-reply@localhost>',
      geoBlockedCountries: ['DE'],
      trustProxy: false,
      redeemRateLimit: 10,
      redeemGuessLimit: 20,
      redeemGuessWindowMinutes: 60,
      redeemGuessBlockMinutes: 1440,
      successTokenTtlHours: 72,
      supportEmail: 'support@example.com',
      companyName: 'Office Licences',
      dbPoolSize: 20,
      dbPoolIdleMs: 0,
      dbPipelineConnections: 4,
      dbBulkConnections: 4,
      dbBulkWaitMs: 2000,
    });
  });

  it('generates a JWT secret once and keeps it in the data folder', () => {
    const first = load({}).jwtSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dataDir, 'jwt-secret'), 'utf8')).toBe(first);
    expect(load({}).jwtSecret).toBe(first);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ WORKERS_IN_API: 'maybe' }, 'WORKERS_IN_API'],
    [{ GEO_BLOCKED_COUNTRIES: 'DEU' }, 'GEO_BLOCKED_COUNTRIES'],
    [{ TRUST_PROXY: 'everyone' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'uniquelocal' }, 'TRUST_PROXY'],
    [{ REDEEM_GUESS_LIMIT: 'lots' }, 'REDEEM_GUESS_LIMIT'],
    [{ REDEEM_GUESS_WINDOW_MINUTES: '0' }, 'REDEEM_GUESS_WINDOW_MINUTES'],
    [{ REDEEM_GUESS_BLOCK_MINUTES: '-5' }, 'REDEEM_GUESS_BLOCK_MINUTES'],
    [{ REDEEM_RATE_LIMIT: '-1' }, 'REDEEM_RATE_LIMIT'],
    [{ DB_PIPELINE_CONNECTIONS: '-1' }, 'DB_PIPELINE_CONNECTIONS'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-at-least-32-bytes' }, 'DATA_KEY'],
    [
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-at-least-32-bytes',
        DATA_KEY: Buffer.alloc(32, 1).toString('base64'),
      },
      'SMTP_URL',
    ],
    [
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-at-least-32-bytes',
        DATA_KEY: Buffer.alloc(32, 1).toString('base64'),
        SMTP_URL: 'smtp://mail:25',
      },
      'PUBLIC_URL',
    ],
    [{ WEBHOOK_ALLOW_INSECURE_TARGETS: 'localhost' }, 'WEBHOOK_ALLOW_INSECURE_TARGETS'],
    [{ WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.0/33' }, 'WEBHOOK_ALLOW_INSECURE_TARGETS'],
    [
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'a-production-secret-of-at-least-32-bytes',
        DATA_KEY: Buffer.alloc(32, 1).toString('base64'),
        SMTP_URL: 'smtp://mail:25',
        PUBLIC_URL: 'https://licences.example.com',
        WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.1',
      },
      'WEBHOOK_ALLOW_INSECURE_TARGETS',
    ],
    [{ API_DOCS: 'staff' }, 'API_DOCS'],
    [{ DATA_KEY: 'c2hvcnQ=' }, 'DATA_KEY'],
    [{ DATA_KEY: Buffer.alloc(32, 1).toString('base64'), DATA_KEY_PREVIOUS: 'not base64!' }, 'DATA_KEY_PREVIOUS'],
    [
      { DATA_KEY: Buffer.alloc(32, 1).toString('base64'), DATA_KEY_PREVIOUS: Buffer.alloc(32, 1).toString('base64') },
      'DATA_KEY_PREVIOUS',
    ],
    [{ ADMIN_PASSWORD: 'short' }, 'ADMIN_PASSWORD'],
    [{ ADMIN_PASSWORD: 'aaaaaaaaaaaaaa' }, 'ADMIN_PASSWORD'],
    [{ ADMIN_PASSWORD: 'Longenough12345' }, 'ADMIN_PASSWORD'],
    [{ SUPPORT_EMAIL: 'nobody' }, 'SUPPORT_EMAIL'],
    [{ DB_POOL_SIZE: 'many' }, 'DB_POOL_SIZE'],
    [{ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE'],
    [{ DB_BULK_CONNECTIONS: '0' }, 'DB_BULK_CONNECTIONS'],
    [{ DB_POOL_SIZE: '10', DB_BULK_CONNECTIONS: '10' }, 'DB_BULK_CONNECTIONS'],
    [{ DB_BULK_WAIT_MS: 'soon' }, 'DB_BULK_WAIT_MS'],
    [{ DB_POOL_IDLE_MS: '-1' }, 'DB_POOL_IDLE_MS'],
    [{ JOB_LOCK_MS: '500' }, 'JOB_LOCK_MS'],
  ])('refuses %j with a message naming %s', (env, variable) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(new RegExp(`^${variable}`));
  });

  it("takes JOB_LOCK_MS for the jobs' lock, 30 s unless set", () => {
    expect(load({}).jobLockMs).toBe(30_000);
    expect(load({ JOB_LOCK_MS: '3000' }).jobLockMs).toBe(3000);
  });

  it('generates a DATA_KEY once into the data folder and reads a given one', () => {
    const first = load({}).dataKey;
    expect(first).toHaveLength(32);
    expect(readFileSync(join(dataDir, 'data-key'), 'utf8')).toBe(first.toString('base64'));
    expect(load({}).dataKey.equals(first)).toBe(true);
    const given = Buffer.alloc(32, 7);
    expect(load({ DATA_KEY: given.toString('base64') }).dataKey.equals(given)).toBe(true);
  });

  it('accepts an empty geo list (geo-blocking off) and trust-proxy forms', () => {
    expect(load({ GEO_BLOCKED_COUNTRIES: '' }).geoBlockedCountries).toEqual([]);
    expect(load({ GEO_BLOCKED_COUNTRIES: 'de, at' }).geoBlockedCountries).toEqual(['DE', 'AT']);
    expect(load({ GEO_BLOCKED_COUNTRIES: ' ' }).geoBlockedCountries).toEqual([]);
    expect(load({ TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
    expect(load({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(load({ TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toBe('10.0.0.0/8');
    expect(load({ TRUST_PROXY: 'loopback, 172.20.0.10, fd00::/8' }).trustProxy).toBe('loopback,172.20.0.10,fd00::/8');
  });

  it('starts in production with real mail, and takes webhook targets allowed over http from configuration only', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: 'a-production-secret-of-at-least-32-bytes',
      DATA_KEY: Buffer.alloc(32, 1).toString('base64'),
      SMTP_URL: 'smtp://mail:25',
      PUBLIC_URL: 'https://licences.example.com/',
    };
    expect(load(production)).toMatchObject({
      smtpUrl: 'smtp://mail:25',
      publicUrl: 'https://licences.example.com',
      webhookInsecureTargets: [],
      apiDocs: 'off',
    });
    expect(load({ ...production, API_DOCS: 'public' }).apiDocs).toBe('public');
    expect(load({}).apiDocs).toBe('public');
    expect(load({ API_DOCS: 'off' }).apiDocs).toBe('off');
    expect(load({ NODE_ENV: 'test' }).webhookInsecureTargets).toEqual([]);
    expect(load({ WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.1, ::1, 10.0.0.0/8' }).webhookInsecureTargets).toEqual([
      '127.0.0.1',
      '::1',
      '10.0.0.0/8',
    ]);
  });

  it('refuses an ADMIN_PASSWORD that misses a kind of character (docs/product.md §6.4), with its message, and takes a strong one', () => {
    expect(() => load({ ADMIN_PASSWORD: 'aaaaaaaaaaaaaa' })).toThrow(
      'ADMIN_PASSWORD: Password must contain uppercase, lowercase, number and special character',
    );
    expect(load({ ADMIN_PASSWORD: 'Str0ng!Enough#Pw' }).adminPassword).toBe('Str0ng!Enough#Pw');
  });

  it('refuses TRUST_PROXY=true with a message that says why and what to give instead', () => {
    expect(() => load({ TRUST_PROXY: 'true' })).toThrow(
      /^TRUST_PROXY=true is refused: .*X-Forwarded-For.*number of proxies/,
    );
  });
});
