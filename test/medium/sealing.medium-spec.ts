import { countedKeys } from '../helpers/counted-sql';
import { randomBytes } from 'crypto';
import { DataSource } from 'typeorm';
import { DataCipher } from '../../backend/src/config/data-cipher';
import { DatabaseService } from '../../backend/src/database/database.service';
import { dataSourceOptions } from '../../backend/src/database/data-source-options';
import { runMigrations } from '../../backend/src/database/migrate';
import { countKeysNotUnderCurrent, rotateSealedKeys, sealKeysStoredInClear } from '../../backend/src/keys-at-rest';
import { AdminUserRepository } from '../../backend/src/modules/auth/admin-user.repository';
import { LicenseKeySealingRepository } from '../../backend/src/modules/license/license-key-sealing.repository';
import { ProductRepository } from '../../backend/src/modules/product/product.repository';
import { addLicenseKey, keyHash, licenseManagedProduct, openKey } from '../helpers/factories';
import { MediumDatabase, startMediumDatabase } from '../helpers/medium';
import { randomHex } from '../helpers/seed';

const NO_KEYS = { licenseKeys: 0, productKeys: 0, webhookSecrets: 0, totpSecrets: 0, marketplaceSecrets: 0 };

/**
 * docs/product.md §18.1 keys at rest, on the owners' repositories over a DataSource (no Nest, no HTTP): what the
 * writers store (only ciphertext and a keyed hash), the start-up sealing of rows an earlier version left in clear
 * (licence keys in resumable batches, product keys, TOTP secrets; once each, beside another instance), and the
 * rotation to a new DATA_KEY. The clear keys on the success page, in e-mails, exports and a pg_dump, and the
 * `rotate-data-key` command: test/keys-at-rest.e2e-spec.ts; signing in with a sealed TOTP secret:
 * test/totp-at-rest.e2e-spec.ts.
 */
describe('sealing keys at rest (medium)', () => {
  let m: MediumDatabase;
  let products: ProductRepository;
  let users: AdminUserRepository;

  beforeAll(async () => {
    m = await startMediumDatabase();
    products = new ProductRepository(m.database, m.cipher);
    users = new AdminUserRepository(m.database, m.cipher);
  });
  afterAll(() => m?.close());

  const newUser = async () =>
    (
      await m.db.query(
        `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, 'unused', 'unused', 'admin')
         RETURNING id`,
        [`seal_${randomHex(4)}`, `seal.${randomHex(4)}@example.com`],
      )
    )[0].id as string;
  const seal = (ds: DataSource) => sealKeysStoredInClear(ds, m.cipher);

  it('a product key and a TOTP secret are written sealed and read back in clear', async () => {
    const id = await products.insert({ name: `Sealed ${randomHex(3)} (Mac)`, productKey: 'SEALEDPK-00001' });
    const [stored] = await m.db.query(`SELECT product_key, product_key_ciphertext FROM products WHERE id = $1`, [id]);
    expect(stored.product_key).toBeNull();
    expect(m.cipher.isCurrent(stored.product_key_ciphertext)).toBe(true);
    expect(stored.product_key_ciphertext.toString('latin1')).not.toContain('SEALEDPK');
    expect((await products.findById(id))?.productKey).toBe('SEALEDPK-00001');

    const user = await newUser();
    expect(await users.setTotpSecretUnlessEnabled(user, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).toBe(true);
    const [row] = await m.db.query(
      `SELECT two_factor_secret, two_factor_secret_ciphertext FROM admin_users WHERE id = $1`,
      [user],
    );
    expect(row.two_factor_secret).toBeNull();
    expect(openKey(m.db, row.two_factor_secret_ciphertext)).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect((await users.findById(user))?.twoFactorSecret).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
  });

  it('a product key and a TOTP secret left in clear are sealed at start-up, once', async () => {
    const [product] = await m.db.query(
      `INSERT INTO products (name, product_key, download_link) VALUES ($1, 'LEGACYPK-12345', 'https://dl.example.com/l.pkg')
       RETURNING id`,
      [`Legacy ${randomHex(3)} (Mac)`],
    );
    const user = await newUser();
    await m.db.query(`UPDATE admin_users SET two_factor_secret = $2, two_factor_enabled = true WHERE id = $1`, [
      user,
      'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU',
    ]);
    expect(await runMigrations(m.testDatabase.url, seal)).toEqual({ ...NO_KEYS, productKeys: 1, totpSecrets: 1 });
    expect(await runMigrations(m.testDatabase.url, seal)).toEqual(NO_KEYS);
    const [stored] = await m.db.query(`SELECT product_key FROM products WHERE id = $1`, [product.id]);
    expect(stored.product_key).toBeNull();
    expect((await products.findById(product.id))?.productKey).toBe('LEGACYPK-12345');
    const [row] = await m.db.query(`SELECT two_factor_secret FROM admin_users WHERE id = $1`, [user]);
    expect(row.two_factor_secret).toBeNull();
    expect((await users.findById(user))?.twoFactorSecret).toBe('KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU');
  });

  it('licence keys stored in clear are sealed once each, resumably and safely beside another instance', async () => {
    const product = await licenseManagedProduct(m.db, `Legacy ${randomHex(3)}`);
    const plain = Array.from(
      { length: 25 },
      (_, i) => `LEGACY-${String(i).padStart(4, '0')}-${randomHex(3).toUpperCase()}`,
    );
    const stored = [...plain, 'MANUAL_LEGACY-HAND-00001'];
    // The old way: the clear key only.
    await m.db.query(
      countedKeys(
        `INSERT INTO license_keys (product_id, license_key, download_link) SELECT $1, unnest($2::text[]), 'https://dl.example.com/l'`,
      ),
      [product, stored],
    );
    // An interrupted run: one small batch only.
    expect(await new LicenseKeySealingRepository(m.database, m.cipher).sealPlainBatch(3)).toBe(3);

    // Two instances without the migration lock, then two starting together (under it): each row sealed once.
    const sources = await Promise.all(
      [1, 2].map(() =>
        new DataSource({ ...dataSourceOptions(m.testDatabase.url), extra: { max: 2 }, logging: false }).initialize(),
      ),
    );
    try {
      const counts = await Promise.all(sources.map(seal));
      expect(counts[0].licenseKeys + counts[1].licenseKeys).toBe(stored.length - 3);
    } finally {
      await Promise.all(sources.map((ds) => ds.destroy()));
    }
    const started = await Promise.all([
      runMigrations(m.testDatabase.url, seal),
      runMigrations(m.testDatabase.url, seal),
    ]);
    expect(started).toEqual([NO_KEYS, NO_KEYS]);

    const rows: Array<{
      license_key: string | null;
      key_ciphertext: Buffer;
      key_hash: Buffer;
      key_last: string;
      is_manual: boolean;
    }> = await m.db.query(
      `SELECT license_key, key_ciphertext, key_hash, key_last, is_manual FROM license_keys WHERE product_id = $1`,
      [product],
    );
    expect(rows.map((r) => openKey(m.db, r.key_ciphertext)).sort()).toEqual([...stored].sort());
    for (const r of rows) {
      const key = openKey(m.db, r.key_ciphertext);
      expect(r.license_key).toBeNull();
      expect(r.key_hash.equals(keyHash(m.db, key))).toBe(true);
      expect(r.key_last).toBe(key.replace(/^MANUAL_/, '').slice(-5));
      expect(r.is_manual).toBe(key.startsWith('MANUAL_'));
    }
    // The hash is what the duplicate check and the whole-key search find a key by.
    const [found] = await m.db.query(`SELECT count(*)::int AS n FROM license_keys WHERE key_hash = $1`, [
      keyHash(m.db, plain[0]),
    ]);
    expect(found.n).toBe(1);
  });

  it('a rotation re-seals licence keys, product keys and TOTP secrets under the new DATA_KEY, resumably', async () => {
    // A database of its own: the rotation re-seals every row, which this file's other tests read under the old key.
    const own = await startMediumDatabase();
    try {
      const oldCipher = own.cipher;
      const product = await licenseManagedProduct(own.db, `Rotation ${randomHex(3)}`);
      const keys = ['ROTATE-0001-AAAAA', 'ROTATE-0002-BBBBB', 'ROTATE-0003-CCCCC'];
      for (const key of keys) await addLicenseKey(own.db, product, key);
      const mac = await new ProductRepository(own.database, oldCipher).insert({
        name: 'Rotation Suite (Mac)',
        productKey: 'ROTATEPK-0001',
      });
      const [{ id: user }] = await own.db.query(
        `INSERT INTO admin_users (username, email, password_hash, salt, role, two_factor_secret_ciphertext)
         VALUES ('rotating', 'rotating@example.com', 'unused', 'unused', 'admin', $1) RETURNING id`,
        [oldCipher.seal('KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU')],
      );

      const newKey = randomBytes(32);
      const rotating = new DataCipher(newKey, own.config.dataKey);
      // An interrupted rotation: the first licence key only.
      const partial = await new LicenseKeySealingRepository(own.database, rotating).rotateBatch(null, 1);
      expect(partial.rotated).toBe(1);
      expect(await countKeysNotUnderCurrent(own.db, rotating)).toEqual({
        licenseKeys: 2,
        productKeys: 1,
        webhookSecrets: 0,
        totpSecrets: 1,
        marketplaceSecrets: 0,
      });
      expect(await rotateSealedKeys(own.db, rotating)).toEqual({
        licenseKeys: 2,
        productKeys: 1,
        webhookSecrets: 0,
        totpSecrets: 1,
        marketplaceSecrets: 0,
      });
      expect(await rotateSealedKeys(own.db, rotating)).toEqual(NO_KEYS);
      expect(await countKeysNotUnderCurrent(own.db, rotating)).toEqual(NO_KEYS);

      // Everything opens under the new key alone, hashed under it; nothing under the old one.
      const newCipher = new DataCipher(newKey);
      const rows: Array<{ key_ciphertext: Buffer; key_hash: Buffer }> = await own.db.query(
        `SELECT key_ciphertext, key_hash FROM license_keys WHERE product_id = $1`,
        [product],
      );
      expect(rows.map((r) => newCipher.open(r.key_ciphertext)).sort()).toEqual(keys);
      for (const r of rows) expect(r.key_hash.equals(newCipher.hash(newCipher.open(r.key_ciphertext)))).toBe(true);
      expect(() => oldCipher.open(rows[0].key_ciphertext)).toThrow(/unknown data key/);
      const reader = new DatabaseService(own.db);
      expect((await new ProductRepository(reader, newCipher).findById(mac))?.productKey).toBe('ROTATEPK-0001');
      expect((await new AdminUserRepository(reader, newCipher).findById(user))?.twoFactorSecret).toBe(
        'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU',
      );
    } finally {
      await own.close();
    }
  });
});
