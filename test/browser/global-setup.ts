import { execFileSync } from 'child_process';
import { join } from 'path';
import { createMigratedTemplate } from '../helpers/database';
import { launchWorkerBrowsers } from './browser';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { stale } = require('../../scripts/build-state');

const root = join(__dirname, '..', '..');
const frontend = join(root, 'frontend');

/**
 * Once per run, before any worker starts: the built web app the browser flows run against (rebuilt when
 * frontend/dist is missing or older than its sources), the migrated template their databases are copies of
 * (test/helpers/database.ts) and one Chromium per worker (test/browser/browser.ts).
 */
export default async function setUpBrowserFlows({ maxWorkers }: { maxWorkers: number }): Promise<void> {
  buildFrontendIfStale();
  await createMigratedTemplate();
  await launchWorkerBrowsers(maxWorkers);
}

function buildFrontendIfStale(): void {
  const sources = [
    join(frontend, 'src'),
    join(frontend, 'build'),
    join(frontend, 'public'),
    join(frontend, 'index.html'),
    join(frontend, 'vite.config.mts'),
  ];
  if (!stale(join(frontend, 'dist', 'index.html'), sources)) return;
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'frontend/vite.config.mts',
      '--logLevel',
      'warn',
    ],
    {
      cwd: root,
      stdio: 'inherit',
      // jest sets NODE_ENV=test, which would make Vite bundle React's development builds.
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
}
