import { randomBytes } from 'crypto';
import { Client } from 'pg';
import { runMigrations } from '../../backend/src/database/migrate';

/** The machine's PostgreSQL (CI and developers): trust auth on 127.0.0.1:5432. */
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The run's migrated template database (createMigratedTemplate), named in the environment its workers inherit. */
const TEMPLATE_VARIABLE = 'OVR_TEST_TEMPLATE';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function asAdmin(...statements: string[]): Promise<void> {
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    for (const statement of statements) await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** A fresh, uniquely named empty database per suite; dropped (with its connections) afterwards. */
export async function createTestDatabase(prefix = 'ovr_test', template?: string): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await asAdmin(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A fresh database with every migration applied: a copy of the run's migrated template (about 0.2 s, where
 * migrating takes 2-3 s). Without a template (a run without the global setup) it is empty, and the app's start-up
 * migrates it. Tests of the migrations themselves start from createTestDatabase.
 */
export function createMigratedDatabase(prefix = 'ovr_test'): Promise<TestDatabase> {
  return createTestDatabase(prefix, process.env[TEMPLATE_VARIABLE]);
}

/**
 * Migrates a database once for the whole run (the global setups of the projects that start the app), marks it a
 * template that accepts no connection, and names it to the workers. PostgreSQL copies a template only while no
 * session is connected to it: the migration's connection is closed first, and none can open afterwards.
 */
export async function createMigratedTemplate(): Promise<void> {
  if (process.env[TEMPLATE_VARIABLE]) return;
  await dropOrphanedTemplates();
  const template = await createTestDatabase(`ovr_template_${process.pid}`);
  try {
    await runMigrations(template.url);
    await asAdmin(`ALTER DATABASE ${template.name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } catch (err) {
    await template.drop();
    throw err;
  }
  process.env[TEMPLATE_VARIABLE] = template.name;
}

/**
 * Templates left by runs that ended without their teardown (killed): each is named after the process of its run,
 * and that process is gone. Only on this machine's PostgreSQL, where those processes would be seen.
 */
async function dropOrphanedTemplates(): Promise<void> {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(PG_ADMIN_URL).hostname)) return;
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const rows: Array<{ datname: string }> = (
      await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'ovr\\_template\\_%'`)
    ).rows;
    for (const { datname } of rows) {
      const pid = Number(/^ovr_template_(\d+)_/.exec(datname)?.[1]);
      if (!pid || running(pid)) continue;
      // Another run may be dropping it at the same moment.
      await admin.query(`ALTER DATABASE ${datname} WITH IS_TEMPLATE false`).catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => undefined);
    }
  } finally {
    await admin.end();
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops the run's template (the global teardown), so a run leaves no database behind. */
export async function dropMigratedTemplate(): Promise<void> {
  const name = process.env[TEMPLATE_VARIABLE];
  if (!name) return;
  await asAdmin(`ALTER DATABASE ${name} WITH IS_TEMPLATE false`, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  delete process.env[TEMPLATE_VARIABLE];
}
