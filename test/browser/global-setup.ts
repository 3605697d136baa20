import { execFileSync } from 'child_process';
import { existsSync, readdirSync, statSync } from 'fs';
import { join } from 'path';

const root = join(__dirname, '..', '..');
const frontend = join(root, 'frontend');

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** The browser flows run against the built app: build it when frontend/dist is missing or older than its sources. */
export default function buildFrontendIfStale(): void {
  const index = join(frontend, 'dist', 'index.html');
  const sources = [join(frontend, 'src'), join(frontend, 'index.html'), join(frontend, 'vite.config.mts')];
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  if (built && sources.every((src) => newestMtime(src) <= built)) return;
  execFileSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'frontend/vite.config.mts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    // jest sets NODE_ENV=test, which would make Vite bundle React's development builds.
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
