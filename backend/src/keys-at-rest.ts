import { DataSource } from 'typeorm';
import { DataCipher } from './config/data-cipher';
import { DatabaseService } from './database/database.service';
import { AdminUserRepository } from './modules/auth/admin-user.repository';
import { LicenseKeySealingRepository } from './modules/license/license-key-sealing.repository';
import { MarketplaceRepository } from './modules/marketplace/marketplace.repository';
import { ProductRepository } from './modules/product/product.repository';
import { WebhookRepository } from './modules/webhook/webhook.repository';

export interface KeyCounts {
  licenseKeys: number;
  productKeys: number;
  /** Webhook endpoint secrets (sealed from the start: only rotation counts them). */
  webhookSecrets: number;
  /** Admin users' TOTP secrets. */
  totpSecrets: number;
  /** Marketplace connections' signing secrets (sealed from the start: only rotation counts them). */
  marketplaceSecrets: number;
}

/** The owners of the sealed columns, outside Nest (start-up and the CLI run before or without the app). */
function owners(dataSource: DataSource, cipher: DataCipher) {
  const database = new DatabaseService(dataSource);
  return {
    keys: new LicenseKeySealingRepository(database, cipher),
    products: new ProductRepository(database, cipher),
    webhooks: new WebhookRepository(database, cipher),
    users: new AdminUserRepository(database, cipher),
    marketplaces: new MarketplaceRepository(database, cipher),
  };
}

/**
 * Start-up step (docs/product.md §18.1), run under the migration lock: seals every licence key, product key and TOTP secret
 * still stored in clear. Licence keys go in batches of one transaction each (resumable after an interruption,
 * idempotent, safe beside another instance: each batch row-locks its rows with SKIP LOCKED); the other two are a
 * handful of rows, each UPDATE guarded by the clear value it read.
 */
export async function sealKeysStoredInClear(dataSource: DataSource, cipher: DataCipher): Promise<KeyCounts> {
  const { keys, products, users } = owners(dataSource, cipher);
  let licenseKeys = 0;
  for (let sealed = await keys.sealPlainBatch(); sealed > 0; sealed = await keys.sealPlainBatch()) {
    licenseKeys += sealed;
  }
  const productKeys = await products.sealPlainKeys();
  const totpSecrets = await users.sealPlainTotpSecrets();
  return { licenseKeys, productKeys, webhookSecrets: 0, totpSecrets, marketplaceSecrets: 0 };
}

/**
 * `rotate-data-key`: every licence key, product key, webhook secret, TOTP secret and marketplace secret re-sealed
 * under DATA_KEY
 * (DATA_KEY_PREVIOUS opens the ones not yet rotated). Rows already under DATA_KEY are skipped, so an interrupted run
 * is simply run again.
 */
export async function rotateSealedKeys(dataSource: DataSource, cipher: DataCipher): Promise<KeyCounts> {
  const { keys, products, webhooks, users, marketplaces } = owners(dataSource, cipher);
  let licenseKeys = 0;
  for (let batch = await keys.rotateBatch(null); batch.lastId; batch = await keys.rotateBatch(batch.lastId)) {
    licenseKeys += batch.rotated;
  }
  const productKeys = await products.rotateKeys();
  const webhookSecrets = await webhooks.rotateSecrets();
  const totpSecrets = await users.rotateTotpSecrets();
  const marketplaceSecrets = await marketplaces.rotateSecrets();
  return { licenseKeys, productKeys, webhookSecrets, totpSecrets, marketplaceSecrets };
}

/**
 * `rotate-data-key`'s closing check: the rows still not under DATA_KEY (another instance writing under the old key
 * meanwhile, a row skipped by a concurrent change). Anything but zeros means DATA_KEY_PREVIOUS must stay.
 */
export async function countKeysNotUnderCurrent(dataSource: DataSource, cipher: DataCipher): Promise<KeyCounts> {
  const { keys, products, webhooks, users, marketplaces } = owners(dataSource, cipher);
  const id = cipher.currentKeyId;
  return {
    licenseKeys: await keys.countNotUnder(id),
    productKeys: await products.countKeysNotUnder(id),
    webhookSecrets: await webhooks.countSecretsNotUnder(id),
    totpSecrets: await users.countTotpSecretsNotUnder(id),
    marketplaceSecrets: await marketplaces.countSecretsNotUnder(id),
  };
}
