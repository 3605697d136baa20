import { dropMigratedTemplate } from './helpers/database';

/**
 * After the medium, e2e and browser projects (a teardown the projects share runs once per run): the run's template
 * database goes, so a run leaves nothing behind.
 */
export default function tearDown(): Promise<void> {
  return dropMigratedTemplate();
}
