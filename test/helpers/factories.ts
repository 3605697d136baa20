import { DataSource } from 'typeorm';
import { DataCipher } from '../../backend/src/config/data-cipher';
import { sealedKeyColumns } from '../../backend/src/modules/license/license.repository';
import { countedCodes, countedKeys } from './counted-sql';
import { randomHex } from './seed';

/** The DATA_KEY cipher of each running test app, by its DataSource (set by startTestApp). */
export const testCiphers = new WeakMap<DataSource, DataCipher>();

function cipherOf(db: DataSource): DataCipher {
  const cipher = testCiphers.get(db);
  if (!cipher) throw new Error('no DataCipher registered for this DataSource (use startTestApp)');
  return cipher;
}

/** The keyed hash a licence key is stored under (`license_keys.key_hash`): how a test finds a key's row. */
export function keyHash(db: DataSource, storedKey: string): Buffer {
  return cipherOf(db).hash(storedKey);
}

/** The clear key of a `license_keys` row read by a test (`key_ciphertext`). */
export function openKey(db: DataSource, ciphertext: Buffer): string {
  return cipherOf(db).open(ciphertext);
}

export const PRODUCTS = {
  proPlusWindows: 'Office 2024 Professional Plus (Windows)',
  homeBusinessWindows: 'Office 2024 Home & Business (Windows)',
  homeBusinessMac: 'Office 2024 Home & Business (Mac)',
} as const;

export async function productId(db: DataSource, name: string): Promise<string> {
  const [row] = await db.query(`SELECT id FROM products WHERE name = $1`, [name]);
  if (!row) throw new Error(`no product ${name}`);
  return row.id;
}

export function randomCode(prefix = 'TEST'): string {
  return `${prefix}-${randomHex(5).toUpperCase()}`;
}

/** Inserts voucher codes for a product and returns them. */
export async function addCodes(db: DataSource, product: string, codes: string[]): Promise<string[]> {
  await db.query(countedCodes(`INSERT INTO voucher_codes (code, product_id) SELECT unnest($1::text[]), $2`), [
    codes,
    product,
  ]);
  return codes;
}

export async function addLicenseKey(
  db: DataSource,
  product: string,
  key: string,
  opts: { maxActivations?: number; type?: 'single-user' | 'volume'; downloadLink?: string; active?: boolean } = {},
): Promise<string> {
  const sealed = sealedKeyColumns(cipherOf(db), key);
  const [row] = await db.query(
    countedKeys(`INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, is_manual, download_link, license_type,
                               max_activations, is_active)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`),
    [
      product,
      sealed.ciphertext,
      sealed.hash,
      sealed.last,
      key.startsWith('MANUAL_'),
      opts.downloadLink ?? 'https://downloads.example.com/office2024.exe',
      opts.type ?? (opts.maxActivations && opts.maxActivations > 1 ? 'volume' : 'single-user'),
      opts.maxActivations ?? 1,
      opts.active ?? true,
    ],
  );
  return row.id;
}

export interface RedeemBody {
  voucherCode: string;
  firstName: string;
  lastName: string;
  email: string;
  phone?: string;
  acceptPrivacyPolicy: boolean;
  submissionTime: string;
  website: string;
  company_website: string;
}

export function redeemBody(overrides: Partial<RedeemBody> & { voucherCode: string }): RedeemBody {
  return {
    firstName: 'Ann',
    lastName: 'Lee',
    email: `ann.${randomHex(4)}@example.com`,
    phone: '+1 302 555 0100',
    acceptPrivacyPolicy: true,
    submissionTime: String(Date.now()),
    website: '',
    company_website: '',
    ...overrides,
  };
}

/** A licence-managed product of its own, so the pool keys of one test never serve another. */
export async function licenseManagedProduct(db: DataSource, name: string): Promise<string> {
  const [row] = await db.query(
    `INSERT INTO products (name, is_license_managed, download_link, email_subject, email_template)
     VALUES ($1, true, 'https://dl.example.com/product.exe', 'Your licence', '<p>Key: {{license_key}} Link: {{download_link}}</p>')
     RETURNING id`,
    [`${name} (Windows)`],
  );
  return row.id;
}
