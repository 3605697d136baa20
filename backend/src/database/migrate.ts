import { DataSource } from 'typeorm';
import type { DataCipher } from '../config/data-cipher';
import { LicenseKeySealingRepository } from '../modules/license/license-key-sealing.repository';
import { DatabaseService } from './database.service';
import { dataSourceOptions } from './data-source-options';

/** Arbitrary constant: the advisory lock that serialises migrations when several instances boot at once. */
const MIGRATION_LOCK = 724_311_001;

/**
 * Migrations, then (given the cipher) the start-up sealing of licence keys still stored in clear, both under
 * the migration lock: of instances starting together one seals, the others find nothing left. Answers how
 * many keys were sealed.
 */
export async function runMigrations(databaseUrl: string, cipher?: DataCipher): Promise<{ sealed: number }> {
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl), extra: { max: 1 }, logging: false });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      return { sealed: cipher ? await sealPlainLicenseKeys(dataSource, cipher) : 0 };
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Seals every licence key still in clear (rows from before migration 1763700007000), in batches of one
 * transaction each: resumable after an interruption, idempotent, and safe beside another instance doing the same
 * (each batch row-locks its rows with SKIP LOCKED). Answers how many keys this call sealed.
 */
export async function sealPlainLicenseKeys(dataSource: DataSource, cipher: DataCipher): Promise<number> {
  const keys = new LicenseKeySealingRepository(new DatabaseService(dataSource), cipher);
  let total = 0;
  for (let sealed = await keys.sealPlainBatch(); sealed > 0; sealed = await keys.sealPlainBatch()) total += sealed;
  return total;
}
