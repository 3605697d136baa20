import type { INestApplication } from '@nestjs/common';
import { ChildProcess, spawn } from 'child_process';
import { randomBytes } from 'crypto';
import { existsSync } from 'fs';
import { dirname, join } from 'path';
import { createInterface } from 'readline';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { AppConfig, ConfigError } from './config/app-config';
import { AdminUserRepository } from './modules/auth/admin-user.repository';
import { generatePassword, hashPassword } from './modules/auth/password';
import type { CreateLicenseKeyDto } from './modules/license/dto/license-key.dto';
import { LicenseKeyService } from './modules/license/license-key.service';
import { ProductService } from './modules/product/product.service';
import { VoucherCodeRepository } from './modules/voucher/voucher-code.repository';
import { VoucherService } from './modules/voucher/voucher.service';

/** What `npm run demo` keeps ready: unredeemed codes per product, available pool keys in all. */
export const DEMO_CODES_PER_PRODUCT = 10;
export const DEMO_POOL_KEYS = 20;
/** The product whose codes the demo's reference marketplace sends. */
export const DEMO_MARKETPLACE_PRODUCT = 'Office 2024 Home & Business (Mac)';

type Env = Record<string, string | undefined>;

/** The admin password of this demo start, unless ADMIN_PASSWORD chooses one. */
export function demoAdminPassword(env: Env): string | undefined {
  return env.ADMIN_PASSWORD ? undefined : generatePassword();
}

/**
 * `npm run demo` runs on an embedded PostgreSQL of its own (`<DATA_DIR>/demo`, port 5434 unless
 * EMBEDDED_POSTGRES_PORT is set), never on DATABASE_URL or Redis, so the demo codes land nowhere else.
 */
export function demoEnv(env: Env, adminPassword: string | undefined): Env {
  if (env.NODE_ENV === 'production') {
    throw new ConfigError('npm run demo is a local try-out: unset NODE_ENV=production');
  }
  return {
    ...env,
    ADMIN_PASSWORD: env.ADMIN_PASSWORD || adminPassword,
    DATABASE_URL: undefined,
    REDIS_URL: undefined,
    DATA_DIR: join(env.DATA_DIR || '.data', 'demo'),
    EMBEDDED_POSTGRES_PORT: env.EMBEDDED_POSTGRES_PORT || '5434',
    // The demo's pools hold 10 activations for its 10 codes a product: every code is covered, so the default minimum
    // of 50 would only print a low-pool warning under the banner at every start.
    POOL_ALERT_MIN: env.POOL_ALERT_MIN || '5',
    // The reference marketplace the demo starts listens on loopback (docs/product.md §24.1).
    WEBHOOK_ALLOW_INSECURE_TARGETS: env.WEBHOOK_ALLOW_INSECURE_TARGETS ?? '127.0.0.1',
  };
}

/** The reference marketplace's script (scripts/marketplace-mock.js), found from this file (src or dist). */
function marketplaceScript(): string | undefined {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const script = join(dir, 'scripts', 'marketplace-mock.js');
    if (existsSync(script)) return script;
  }
  return undefined;
}

/**
 * The reference marketplace beside the demo (`npm run demo`; DEMO_MARKETPLACE=false: none): it connects itself
 * through the admin API with the demo's password, sends codes of the Mac product at once and every 15 s and
 * acknowledges their reports (no live check: the demo's own code of that product is none it sold); its lines are printed prefixed `marketplace │`, and a line typed into the demo
 * (`refund <CODE>`) reaches it. It ends with the demo (its input closes then, even when the demo is killed).
 */
export function startDemoMarketplace(env: Env, port: number, password: string): ChildProcess | undefined {
  const script = env.DEMO_MARKETPLACE === 'false' ? undefined : marketplaceScript();
  if (!script) return undefined;
  const child = spawn(process.execPath, [script], {
    env: {
      ...env,
      SERVICE_URL: `http://127.0.0.1:${port}`,
      ADMIN_PASSWORD: password,
      MOCK_PORT: env.DEMO_MARKETPLACE_PORT || '4010',
      MOCK_PRODUCT: DEMO_MARKETPLACE_PRODUCT,
      // The demo's own printed code of that product is no code the marketplace sold: no live check.
      MOCK_CHECK_AT_REDEEM: 'false',
      MOCK_EXIT_WITH_INPUT: 'true',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(`marketplace │ ${line}`));
  }
  if (process.stdin.isTTY) process.stdin.pipe(child.stdin);
  child.on('error', (err) => console.log(`marketplace │ could not start: ${err.message}`));
  return child;
}

export interface DemoSeed {
  codes: Array<{ product: string; code: string }>;
  admin: { username: string; password: string; generated: boolean };
}

const randomPart = (length: number) =>
  randomBytes(length)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .padEnd(length, 'X')
    .slice(0, length);

/**
 * Tops the demo data up through the services (audit rows included): DEMO_CODES_PER_PRODUCT unredeemed codes for
 * every active product, DEMO_POOL_KEYS available keys spread over the licence-managed products, and the admin
 * password `generated` for this start (demoAdminPassword; a first start created the admin with it already).
 * Answers one code per product and the admin login.
 */
export async function seedDemo(
  app: INestApplication,
  config: AppConfig,
  generated: string | undefined,
): Promise<DemoSeed> {
  const actor = { adminUserId: null, ipAddress: null, userAgent: 'npm run demo' };
  const products = (await app.get(ProductService).list()).filter((p) => p.status === 'active');

  const codes = app.get(VoucherCodeRepository);
  for (const product of products) {
    const missing = DEMO_CODES_PER_PRODUCT - product.unredeemedCount;
    if (missing <= 0) continue;
    const fresh = Array.from({ length: missing }, () => `DEMO-${randomPart(4)}-${randomPart(4)}`);
    // One upload batch per top-up (docs/product.md §20.1), named for the demo, by nobody.
    await codes.copyIn(product.id, (copy) => pipeline(Readable.from([`${fresh.join('\n')}\n`]), copy), {
      fileName: 'demo-codes.txt',
      adminUserId: null,
      lines: () => ({ valid: fresh.length, invalid: 0 }),
    });
  }

  const keys = app.get(LicenseKeyService);
  const managed = products.filter((p) => p.isLicenseManaged);
  for (const [i, product] of managed.entries()) {
    const share = Math.floor(DEMO_POOL_KEYS / managed.length) + (i < DEMO_POOL_KEYS % managed.length ? 1 : 0);
    const { summary } = await keys.list({ productId: product.id, limit: 1 });
    for (let n = summary.available; n < share; n++) {
      const dto: CreateLicenseKeyDto = {
        productId: product.id,
        licenseKey: `DEMO${randomPart(1)}-${randomPart(5)}-${randomPart(5)}-${randomPart(5)}-${randomPart(5)}`,
        downloadLink: product.downloadLink || 'https://setup.office.com/',
        licenseType: 'single-user',
      };
      await keys.create(dto, actor);
    }
  }

  const vouchers = app.get(VoucherService);
  const shown: DemoSeed['codes'] = [];
  for (const product of products) {
    const page = await vouchers.list(product.id, { limit: 1, offset: 0, redeemedOnly: 'false' });
    if (page.codes[0]) shown.push({ product: product.name, code: page.codes[0].code });
  }

  if (generated) {
    const { hash, salt } = await hashPassword(generated);
    await app.get(AdminUserRepository).resetPassword(config.adminUsername, hash, salt);
  }
  return {
    codes: shown,
    admin: { username: config.adminUsername, password: config.adminPassword ?? '', generated: !!generated },
  };
}

/** The lines `npm run demo` prints once it listens. */
export function demoBanner(seed: DemoSeed, port: number, config: AppConfig, marketplace?: string): string {
  const url = `http://localhost:${port}`;
  const width = Math.max(...seed.codes.map((c) => c.product.length));
  return boxed([
    `Demo ready on ${url}`,
    '',
    `Redeem one of these codes at ${url}/ (any name, any e-mail address):`,
    ...seed.codes.map((c) => `  ${c.product.padEnd(width)}  ${c.code}`),
    '',
    `Admin console: ${url}/admin/login`,
    `  username ${seed.admin.username}  password ${seed.admin.generated ? seed.admin.password : '(your ADMIN_PASSWORD)'}` +
      (seed.admin.generated ? '  (new at every demo start)' : ''),
    '',
    `Order e-mails are written to ${join(config.dataDir, 'mail')}/*.eml`,
    ...(marketplace
      ? [
          `A reference marketplace sends codes of ${marketplace} below (marketplace │): redeem one and its report is`,
          'acked there within seconds; type "refund <CODE>" to refund one (docs/marketplaces.md).',
        ]
      : []),
    `Demo data lives in ${config.dataDir}: delete it to start over. Ctrl+C stops the demo.`,
  ]);
}

/** What a first `npm start` prints last: the console's address and the admin password generated for it. */
export function firstStartBanner(admin: { username: string; password: string }, port: number): string {
  return boxed([
    `Admin console: http://localhost:${port}/admin/login`,
    `  username ${admin.username}  password ${admin.password}  (shown once: change it after signing in)`,
  ]);
}

/** Lines between two rules of `═` as wide as the longest, with a blank line around: easy to find in a log. */
export function boxed(lines: string[]): string {
  const rule = '═'.repeat(Math.max(...lines.map((line) => line.length)));
  return ['', rule, ...lines, rule, ''].join('\n');
}
