import { resolve } from 'path';
import { bool, ConfigError, Env, int, isAddressOrCidr, optional, str, url } from './env';
import { loadLocalLogin, loadOidcConfig, OidcConfig } from './oidc-config';
import { NEW_PASSWORD_PATTERN, PASSWORD_COMPOSITION_MESSAGE } from './password-rule';
import { dataKey, dataKeyPrevious, jwtSecret } from './secrets';

export { ConfigError } from './env';

/**
 * Every setting of the service, read once at boot from the environment (and `.env`).
 * A bad value stops start-up with a message naming the variable (docs/product.md §23.6).
 */
export interface AppConfig {
  nodeEnv: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  /** Port of the embedded PostgreSQL used when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  /** Connections of the API's PostgreSQL pool: sized for a redemption burst (each holds one for one short statement). */
  dbPoolSize: number;
  /**
   * How long an idle connection of that pool stays open; 0: as long as the process (a fixed-size pool once a burst has
   * opened it). A new connection costs its start-up and plans with empty caches (the list's estimate at ten million
   * redemptions: 5.5 ms on its first run, 0.3 ms after); pg's default of 10 s had the console's first screen after a
   * pause meet new connections (docs/benchmarks.md "A connection's first plan").
   */
  dbPoolIdleMs: number;
  /**
   * Connections of the redemption statement's own pipeline (DatabaseService.pipelined; docs/architecture.md "The
   * redemption's pipeline"), besides the pool; 0: the statement takes a pool connection like any other.
   */
  dbPipelineConnections: number;
  /** Connections uploads and exports may hold at once (the rest stay for short requests), and how long one waits for a slot before 503. */
  dbBulkConnections: number;
  dbBulkWaitMs: number;
  redisUrl?: string;
  /** Key prefix of every Bull queue; lets several apps (and tests) share one Redis. */
  redisPrefix: string;
  /**
   * JOB_LOCK_MS: how long a Bull job's lock lasts without renewal (renewed every half of it while the job runs), and
   * how often a worker looks for stalled jobs. A job whose worker died is run again within about twice this.
   */
  jobLockMs: number;
  workersInApi: boolean;
  /** Without REDIS_URL: `npm start` runs the jobs in a worker process it forks and restarts (false: in the API process). */
  embeddedWorker: boolean;
  adminUsername: string;
  adminPassword?: string;
  adminEmail: string;
  jwtSecret: string;
  /** AES-256-GCM key of licence keys at rest (32 bytes; DATA_KEY, or generated into the data dir outside production). */
  dataKey: Buffer;
  /** The key being rotated away from (DATA_KEY_PREVIOUS): still decrypts; `rotate-data-key` re-encrypts under dataKey. */
  dataKeyPrevious?: Buffer;
  /** Life of an admin session (refresh token); each refresh extends it by this much. */
  sessionTtlHours: number;
  /** Longest life of an admin session from sign-in, whatever the refreshes (docs/product.md §18.5). */
  sessionMaxHours: number;
  /** Consecutive failed logins that lock an account, and for how long. */
  loginLockoutAttempts: number;
  loginLockoutMinutes: number;
  /** Failed logins from one IP within the window that block the IP (0 = never), and for how long. */
  loginIpBlockThreshold: number;
  loginIpBlockWindowMinutes: number;
  loginIpBlockMinutes: number;
  /** How long the in-memory list of blocked IPs is trusted before it is read again. */
  blockedIpCacheMs: number;
  /** How often the sessions of joined admin sockets are checked again (a revoked session's socket is disconnected). */
  realtimeSessionRecheckMs: number;
  /** A socket that has not sent join-admin (nor a handshake token) within this time is disconnected. */
  realtimeJoinTimeoutMs: number;
  smtpUrl?: string;
  smtpFallbackUrl?: string;
  /** How long an SMTP provider may take to accept the connection and to greet; it may stay silent 3 times as long mid-transaction. */
  smtpTimeoutMs: number;
  /** Order e-mails one worker process sends at once; also the SMTP connections it keeps per provider. */
  mailConcurrency: number;
  mailFrom: string;
  geoBlockedCountries: string[];
  /** Express `trust proxy`: false, a hop count, or `loopback`/addresses/CIDRs (comma separated); never `true`. */
  trustProxy: false | number | string;
  /** Redeem attempts per address (IPv4, IPv6 /64) per minute across every instance (0 = off). */
  redeemRateLimit: number;
  /** "Unknown code" answers per address within the window that block it (0 = never), and for how long. */
  redeemGuessLimit: number;
  redeemGuessWindowMinutes: number;
  redeemGuessBlockMinutes: number;
  successTokenTtlHours: number;
  supportEmail: string;
  /** PUBLIC_URL: the service's address as customers reach it, for links in e-mails (the licence centre's sign-in). */
  publicUrl: string;
  companyName: string;
  companyAddress: string;
  /** Attempts of one e-mail job before the redemption is marked failed. */
  mailAttempts: number;
  /** First retry delay of an e-mail job; doubles with each attempt. */
  mailBackoffMs: number;
  /** How often pending e-mails whose job was lost are re-queued. */
  mailSweepIntervalMs: number;
  /** How often each worker reads new redemptions' order e-mails and queues them (`OrderMailRelay`). */
  mailRelayIntervalMs: number;
  /** A pending e-mail older than this with no live job is picked up by the sweep. */
  mailSweepAfterMs: number;
  /** How long one worker holds the claim on a redemption's e-mail while it sends it (seconds). */
  mailClaimSeconds: number;
  /** Security audit rows older than this many days are deleted by the retention job (docs/product.md §1.5: 1 year). */
  auditRetentionDays: number;
  /** E-mail log rows older than this many days are deleted (docs/product.md §1.5: 2 years). */
  emailLogRetentionDays: number;
  /** Redemptions older than this many days are deleted, with customers left without any (docs/product.md §1.5: 7 years). */
  redemptionRetentionDays: number;
  /** How often the retention job runs (daily). */
  retentionIntervalMs: number;
  /** docs/product.md §20.2: a licence pool with fewer days of keys left than this is low (warning colour, alert e-mail). */
  poolAlertDays: number;
  /** ... or with fewer available activations than this. */
  poolAlertMin: number;
  /** How often every licence-managed product's pool is checked for alerts (daily; redemptions also trigger a check). */
  poolCheckIntervalMs: number;
  /** How often each product's pool scan start moves to its first free key (docs/architecture.md "The pool's start"). */
  poolStartIntervalMs: number;
  logLevel: string;
  /** Lists count their matches exactly up to this many; beyond, PostgreSQL's estimate (totalCountExact false). */
  listExactCountLimit: number;
  serveFrontend: boolean;
  /** IANA time zone of statistics periods and export file dates (`TZ`, default UTC). */
  timeZone: string;
  /** How long one webhook delivery may take (connect, answer and body), and the first retry delay (doubles). */
  webhookTimeoutMs: number;
  webhookBackoffMs: number;
  /** A delivery still failing this long after its event is marked failed (docs/product.md §20.4: 24 h). */
  webhookRetryHours: number;
  /**
   * Circuit breaker (docs/product.md §20.4): an endpoint whose last this many attempts all
   * failed (0: never), the first of them at least webhookPauseAfterMinutes ago, is paused until an admin resumes it.
   */
  webhookPauseAfterFailures: number;
  webhookPauseAfterMinutes: number;
  /**
   * WEBHOOK_ALLOW_INSECURE_TARGETS: addresses/CIDRs a webhook may reach over http:// and although private or loopback
   * (receivers on this machine or the operator's network; empty by default, refused with NODE_ENV=production).
   */
  webhookInsecureTargets: string[];
  /**
   * Marketplace connections (docs/product.md §24.6, §24.7): the live check's and every call's budget
   * (MARKETPLACE_TIMEOUT_MS), the first retry delay of a report (doubles) and how long a report is retried before it is
   * dead.
   */
  marketplaceTimeoutMs: number;
  marketplaceBackoffMs: number;
  marketplaceRetryHours: number;
  /**
   * API_DOCS: `public` serves the OpenAPI document and its UI (/api/docs, /api/docs-json) to anyone; `off` answers 404
   * there. Default off with NODE_ENV=production (the admin API's map is nobody's business), public elsewhere.
   */
  apiDocs: 'public' | 'off';
  /** Bearer token of GET /metrics; unset: the route answers 404. */
  metricsToken?: string;
  /** Staff single sign-on (OIDC_*); unset: off. */
  oidc?: OidcConfig;
  /** LOCAL_LOGIN: false leaves password sign-in to the ADMIN_USERNAME account only (break-glass). */
  localLogin: boolean;
  /** Calls one API token may make per minute (API_TOKEN_RATE_LIMIT, 0 = off). */
  apiTokenRateLimit: number;
}

function timeZone(env: Env): string {
  const zone = str(env, 'TZ', 'UTC').trim().replace(/^:/, '');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`TZ must be an IANA time zone such as UTC or Europe/Berlin, got "${zone}"`);
  }
  return zone;
}

function trustProxy(env: Env): false | number | string {
  const raw = str(env, 'TRUST_PROXY', 'false').trim();
  if (raw === 'false') return false;
  if (raw === 'true') {
    throw new ConfigError(
      'TRUST_PROXY=true is refused: it lets any client choose its address through X-Forwarded-For. ' +
        "Give the number of proxies in front of the service (e.g. 1), loopback, or the proxies' addresses/CIDRs",
    );
  }
  if (/^\d+$/.test(raw)) return Number(raw);
  const parts = raw.split(',').map((part) => part.trim());
  const bad = parts.find((part) => part !== 'loopback' && !isAddressOrCidr(part));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be false, a hop count, loopback, or a comma-separated list of addresses/CIDRs; "${bad}" is none of these`,
    );
  }
  return parts.join(',');
}

function webhookInsecureTargets(env: Env, production: boolean): string[] {
  const entries = (optional(env, 'WEBHOOK_ALLOW_INSECURE_TARGETS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (!entries.length) return [];
  if (production) {
    throw new ConfigError(
      'WEBHOOK_ALLOW_INSECURE_TARGETS is refused with NODE_ENV=production: webhooks go to public https receivers only',
    );
  }
  const bad = entries.find((entry) => !isAddressOrCidr(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `WEBHOOK_ALLOW_INSECURE_TARGETS must list IP addresses or CIDRs (e.g. 127.0.0.1/32), got "${bad}"`,
    );
  }
  return entries;
}

function apiDocs(env: Env, production: boolean): 'public' | 'off' {
  const value = str(env, 'API_DOCS', production ? 'off' : 'public')
    .trim()
    .toLowerCase();
  if (value !== 'public' && value !== 'off') {
    throw new ConfigError(`API_DOCS must be public or off, got "${env.API_DOCS}"`);
  }
  return value;
}

function metricsToken(env: Env): string | undefined {
  const token = optional(env, 'METRICS_TOKEN');
  if (token !== undefined && token.length < 16) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters long');
  }
  return token;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  const dataDir = resolve(str(env, 'DATA_DIR', '.data'));
  // Set but empty switches geo-blocking off (docs/product.md §11.3); only an unset variable means the default.
  const countries = (env.GEO_BLOCKED_COUNTRIES ?? 'DE')
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean);
  for (const code of countries) {
    if (!/^[A-Z]{2}$/.test(code)) {
      throw new ConfigError(`GEO_BLOCKED_COUNTRIES must list two-letter ISO codes, got "${code}"`);
    }
  }
  const supportEmail = str(env, 'SUPPORT_EMAIL', 'support@example.com');
  if (!/^[^\s@]+@[^\s@]+$/.test(supportEmail)) throw new ConfigError('SUPPORT_EMAIL must be an e-mail address');
  const adminPassword = optional(env, 'ADMIN_PASSWORD');
  if (adminPassword !== undefined && (adminPassword.length < 12 || adminPassword.length > 128)) {
    throw new ConfigError('ADMIN_PASSWORD must be 12 to 128 characters long');
  }
  if (adminPassword !== undefined && !NEW_PASSWORD_PATTERN.test(adminPassword)) {
    throw new ConfigError(`ADMIN_PASSWORD: ${PASSWORD_COMPOSITION_MESSAGE} (one of @$!%*?&)`);
  }
  const adminUsername = str(env, 'ADMIN_USERNAME', 'admin');
  if (!/^[A-Za-z0-9_]{3,50}$/.test(adminUsername)) {
    throw new ConfigError('ADMIN_USERNAME must be 3-50 letters, digits or underscores');
  }

  const dbPoolSize = int(env, 'DB_POOL_SIZE', 20, 1, 1000);
  const secret = jwtSecret(env, dataDir, nodeEnv === 'production');
  const currentDataKey = dataKey(env, dataDir, nodeEnv === 'production');
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  // docs/product.md §18.7: the file mailer would write every order e-mail, its key in clear,
  // to .data/mail and call it sent.
  if (nodeEnv === 'production' && !smtpUrl) {
    throw new ConfigError(
      'SMTP_URL is required when NODE_ENV=production (order e-mails would otherwise only be written to files)',
    );
  }
  const givenPublicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  // docs/product.md §18.7: the default is this machine's own address, where no customer's browser reaches.
  if (nodeEnv === 'production' && !givenPublicUrl) {
    throw new ConfigError(
      'PUBLIC_URL is required when NODE_ENV=production (the links in e-mails would otherwise point to localhost)',
    );
  }
  const oidc = loadOidcConfig(env, nodeEnv);

  const port = int(env, 'PORT', 3000, 0, 65535);
  const publicUrl = (givenPublicUrl ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    nodeEnv,
    port,
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    embeddedPostgresPort: int(env, 'EMBEDDED_POSTGRES_PORT', 5433, 1, 65535),
    dbPoolSize,
    dbPoolIdleMs: int(env, 'DB_POOL_IDLE_MS', 0, 0, 86_400_000),
    dbPipelineConnections: int(env, 'DB_PIPELINE_CONNECTIONS', 4, 0, 100),
    dbBulkConnections: int(env, 'DB_BULK_CONNECTIONS', 4, 1, Math.max(1, dbPoolSize - 1)),
    dbBulkWaitMs: int(env, 'DB_BULK_WAIT_MS', 2000, 0, 60_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: str(env, 'REDIS_PREFIX', 'ovr'),
    jobLockMs: int(env, 'JOB_LOCK_MS', 30_000, 1000, 600_000),
    workersInApi: bool(env, 'WORKERS_IN_API', true),
    embeddedWorker: bool(env, 'EMBEDDED_WORKER', true),
    adminUsername,
    adminPassword,
    adminEmail: str(env, 'ADMIN_EMAIL', 'admin@localhost'),
    jwtSecret: secret,
    dataKey: currentDataKey,
    dataKeyPrevious: dataKeyPrevious(env, currentDataKey),
    sessionTtlHours: int(env, 'SESSION_TTL_HOURS', 168, 1, 24 * 365),
    sessionMaxHours: int(env, 'SESSION_MAX_HOURS', 720, 1, 24 * 365),
    loginLockoutAttempts: int(env, 'LOGIN_LOCKOUT_ATTEMPTS', 5, 1, 1000),
    loginLockoutMinutes: int(env, 'LOGIN_LOCKOUT_MINUTES', 15, 1, 24 * 60),
    loginIpBlockThreshold: int(env, 'LOGIN_IP_BLOCK_THRESHOLD', 20, 0, 100_000),
    loginIpBlockWindowMinutes: int(env, 'LOGIN_IP_BLOCK_WINDOW_MINUTES', 10, 1, 24 * 60),
    loginIpBlockMinutes: int(env, 'LOGIN_IP_BLOCK_MINUTES', 60, 1, 365 * 24 * 60),
    blockedIpCacheMs: int(env, 'BLOCKED_IP_CACHE_MS', 5000, 0, 600_000),
    realtimeSessionRecheckMs: int(env, 'REALTIME_SESSION_RECHECK_MS', 60_000, 100, 3_600_000),
    realtimeJoinTimeoutMs: int(env, 'REALTIME_JOIN_TIMEOUT_MS', 10_000, 100, 600_000),
    smtpUrl,
    smtpFallbackUrl: url(env, 'SMTP_FALLBACK_URL', ['smtp:', 'smtps:']),
    smtpTimeoutMs: int(env, 'SMTP_TIMEOUT_MS', 10_000, 100, 300_000),
    mailConcurrency: int(env, 'MAIL_CONCURRENCY', 20, 1, 200),
    mailFrom: str(env, 'MAIL_FROM', 'Office Licences <no-reply@localhost>'),
    geoBlockedCountries: countries,
    trustProxy: trustProxy(env),
    redeemRateLimit: int(env, 'REDEEM_RATE_LIMIT', 10, 0),
    redeemGuessLimit: int(env, 'REDEEM_GUESS_LIMIT', 20, 0, 1_000_000),
    redeemGuessWindowMinutes: int(env, 'REDEEM_GUESS_WINDOW_MINUTES', 60, 1, 7 * 24 * 60),
    redeemGuessBlockMinutes: int(env, 'REDEEM_GUESS_BLOCK_MINUTES', 1440, 1, 365 * 24 * 60),
    successTokenTtlHours: int(env, 'SUCCESS_TOKEN_TTL_HOURS', 72, 1),
    supportEmail,
    publicUrl,
    companyName: str(env, 'COMPANY_NAME', 'Office Licences'),
    companyAddress: str(env, 'COMPANY_ADDRESS', '8 The Green, Suite 300, Dover, DE 19901, USA'),
    mailAttempts: int(env, 'MAIL_ATTEMPTS', 5, 1, 100),
    mailBackoffMs: int(env, 'MAIL_BACKOFF_MS', 30_000, 1),
    mailSweepIntervalMs: int(env, 'MAIL_SWEEP_INTERVAL_MS', 60_000, 100),
    mailSweepAfterMs: int(env, 'MAIL_SWEEP_AFTER_MS', 120_000, 0),
    mailRelayIntervalMs: int(env, 'MAIL_RELAY_INTERVAL_MS', 200, 10, 86_400_000),
    mailClaimSeconds: int(env, 'MAIL_CLAIM_SECONDS', 300, 1),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 365, 1),
    emailLogRetentionDays: int(env, 'EMAIL_LOG_RETENTION_DAYS', 730, 1),
    redemptionRetentionDays: int(env, 'REDEMPTION_RETENTION_DAYS', 2557, 1),
    retentionIntervalMs: int(env, 'RETENTION_INTERVAL_MS', 86_400_000, 1000),
    poolAlertDays: int(env, 'POOL_ALERT_DAYS', 7, 0, 3650),
    poolAlertMin: int(env, 'POOL_ALERT_MIN', 50, 0),
    poolCheckIntervalMs: int(env, 'POOL_CHECK_INTERVAL_MS', 86_400_000, 1000),
    poolStartIntervalMs: int(env, 'POOL_START_INTERVAL_MS', 1000, 100),
    listExactCountLimit: int(env, 'LIST_EXACT_COUNT_LIMIT', 100_000, 1),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    serveFrontend: bool(env, 'SERVE_FRONTEND', true),
    timeZone: timeZone(env),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000),
    webhookBackoffMs: int(env, 'WEBHOOK_BACKOFF_MS', 30_000, 1),
    webhookRetryHours: int(env, 'WEBHOOK_RETRY_HOURS', 24, 1, 24 * 7),
    webhookPauseAfterFailures: int(env, 'WEBHOOK_PAUSE_AFTER_FAILURES', 10, 0, 1_000_000),
    webhookPauseAfterMinutes: int(env, 'WEBHOOK_PAUSE_AFTER_MINUTES', 60, 0, 7 * 24 * 60),
    webhookInsecureTargets: webhookInsecureTargets(env, nodeEnv === 'production'),
    marketplaceTimeoutMs: int(env, 'MARKETPLACE_TIMEOUT_MS', 1500, 50, 60_000),
    marketplaceBackoffMs: int(env, 'MARKETPLACE_BACKOFF_MS', 30_000, 1),
    marketplaceRetryHours: int(env, 'MARKETPLACE_RETRY_HOURS', 24, 1, 24 * 7),
    apiDocs: apiDocs(env, nodeEnv === 'production'),
    metricsToken: metricsToken(env),
    oidc,
    localLogin: loadLocalLogin(env, oidc),
    apiTokenRateLimit: int(env, 'API_TOKEN_RATE_LIMIT', 600, 0, 1_000_000),
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
