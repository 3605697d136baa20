import { createMigratedTemplate } from './helpers/database';
import { buildBackendIfStale } from './helpers/processes';

/**
 * Suites that run the built app (scale-out, demo) need `dist/` up to date: built once here, before any worker
 * starts, so two suites never compile into `dist/` at the same time while the other's processes load it. The
 * suites' databases are copies of one template migrated here (test/helpers/database.ts).
 */
export default async function setUpEndToEnd(): Promise<void> {
  buildBackendIfStale();
  await createMigratedTemplate();
}
