import { closeWorkerBrowsers } from './browser/browser';
import { dropMigratedTemplate } from './helpers/database';

/**
 * After the medium, e2e and browser projects (a teardown the projects share runs once per run): the workers'
 * Chromium and the run's template database go, so a run leaves nothing behind.
 */
export default async function tearDown(): Promise<void> {
  await closeWorkerBrowsers();
  await dropMigratedTemplate();
}
