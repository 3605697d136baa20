import { createMigratedTemplate } from '../helpers/database';

/** The medium suites' databases are copies of one template migrated here, once per run (test/helpers/database.ts). */
export default function setUpMedium(): Promise<void> {
  return createMigratedTemplate();
}
