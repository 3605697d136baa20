import { randomBytes } from 'crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { ConfigError, Env, optional } from './env';

/** Secrets read from the environment or, outside production, generated once into the data directory. */
/** The JWT secret is generated once and kept under the data directory so sessions survive restarts. */
export function jwtSecret(env: Env, dataDir: string, production: boolean): string {
  const given = optional(env, 'JWT_SECRET');
  if (given) {
    if (Buffer.byteLength(given) < 32) throw new ConfigError('JWT_SECRET must be at least 32 bytes long');
    return given;
  }
  if (production) throw new ConfigError('JWT_SECRET is required when NODE_ENV=production');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** A 32-byte key given as base64 (`openssl rand -base64 32`). */
export function base64Key(name: string, value: string): Buffer {
  const key = Buffer.from(value, 'base64');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value) || key.length !== 32) {
    throw new ConfigError(`${name} must be 32 bytes, base64-encoded (e.g. the output of "openssl rand -base64 32")`);
  }
  return key;
}

/** Like the JWT secret: generated once into the data directory, required in production (docs/product.md §18.1). */
export function dataKey(env: Env, dataDir: string, production: boolean): Buffer {
  const given = optional(env, 'DATA_KEY');
  if (given) return base64Key('DATA_KEY', given);
  if (production) throw new ConfigError('DATA_KEY is required when NODE_ENV=production');
  const file = join(dataDir, 'data-key');
  if (existsSync(file)) return base64Key(`DATA_KEY (from ${file})`, readFileSync(file, 'utf8').trim());
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return key;
}

export function dataKeyPrevious(env: Env, current: Buffer): Buffer | undefined {
  const given = optional(env, 'DATA_KEY_PREVIOUS');
  if (!given) return undefined;
  const key = base64Key('DATA_KEY_PREVIOUS', given);
  if (key.equals(current)) throw new ConfigError('DATA_KEY_PREVIOUS must differ from DATA_KEY');
  return key;
}
