import { execFile } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { promisify } from 'util';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { moduleRules, parseModuleRules } = require('../scripts/module-rules') as {
  moduleRules(): { modules: Record<string, string[]> };
  parseModuleRules(text: string, folders: string[]): { modules: Record<string, string[]> };
};

/**
 * The module rules of docs/architecture.md ("Modules, their tables and the arrows between them") as
 * `npm run deps:rules` enforces them: the checked-out code keeps them, every arrow the table allows is one the code
 * uses, and a planted import that breaks a rule fails the tool.
 */
const ROOT = join(__dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.js');
const run = promisify(execFile);

interface Cruise {
  summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/** dependency-cruiser's JSON answer for `paths` under `cwd`, with the project's rules (it exits 1 on a violation). */
async function cruise(cwd: string, paths: string[]): Promise<Cruise> {
  const args = [DEPCRUISE, ...paths, '--config', CONFIG, '--output-type', 'json'];
  const out = await run(process.execPath, args, { cwd, maxBuffer: 256 * 1024 * 1024 }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      if (!err.stdout) throw new Error(`dependency-cruiser failed: ${err.stderr}`);
      return { stdout: err.stdout };
    },
  );
  return JSON.parse(out.stdout) as Cruise;
}

const violations = (result: Cruise) => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

/** Files of a throw-away tree: path → content. */
function plant(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'module-rules-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const FOLDERS = readdirSync(join(ROOT, 'backend/src/modules'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const DOC = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

describe('module rules (docs/architecture.md, npm run deps:rules)', () => {
  it('the code keeps them, and every arrow of the module table is one an import uses', async () => {
    const result = await cruise(ROOT, ['backend/src', 'frontend/src']);
    expect(violations(result)).toEqual([]);

    const moduleOf = (path: string) => /^backend\/src\/modules\/([^/]+)\//.exec(path)?.[1];
    const entity = (path: string) => path.endsWith('.entity.ts');
    const used = new Set<string>();
    for (const file of result.modules) {
      const from = moduleOf(file.source);
      for (const dependency of file.dependencies) {
        const to = moduleOf(dependency.resolved);
        if (!from || !to || from === to || (entity(file.source) && entity(dependency.resolved))) continue;
        used.add(`${from} → ${to}`);
      }
    }
    const allowed = Object.entries(moduleRules().modules).flatMap(([from, tos]) => tos.map((to) => `${from} → ${to}`));
    expect(allowed.filter((arrow) => !used.has(arrow))).toEqual([]);
  });

  it('fails on planted imports that break a rule, not on an entity relation or a test', async () => {
    const ADMIN_FEATURE = 'frontend/src/features/dashboard/D.tsx';
    const dir = plant({
      'backend/src/common/planted.ts': "export { refund } from '../modules/redemption/refund';\n",
      'backend/src/modules/redemption/refund.ts': 'export const refund = 1;\n',
      'backend/src/modules/jobs/planted.ts': "export { refund } from '../redemption/refund';\n",
      'backend/src/database/planted.ts': "export { refund } from '../modules/redemption/refund';\n",
      'backend/src/modules/geo/a.ts': "import { b } from './b';\nexport const a = b;\n",
      'backend/src/modules/geo/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      'backend/src/modules/license/entities/key.entity.ts': "export { R } from '../../redemption/entities/r.entity';\n",
      'backend/src/modules/redemption/entities/r.entity.ts': 'export class R {}\n',
      'frontend/src/features/redeem/Planted.tsx': "export { D } from '../dashboard/D';\n",
      'frontend/src/features/dashboard/D.tsx': 'export const D = 1;\n',
      'frontend/src/components/Shared.tsx': "export { D } from '../features/dashboard/D';\n",
      'frontend/src/components/Shared.test.tsx': "export { D } from '../features/dashboard/D';\n",
    });
    try {
      const found = violations(await cruise(dir, ['backend/src', 'frontend/src'])).sort();
      expect(found.filter((v) => !v.startsWith('no-circular:'))).toEqual([
        'common-imports-no-feature: backend/src/common/planted.ts → backend/src/modules/redemption/refund.ts',
        'database-imports-no-module: backend/src/database/planted.ts → backend/src/modules/redemption/refund.ts',
        'module-table:jobs: backend/src/modules/jobs/planted.ts → backend/src/modules/redemption/refund.ts',
        `public-pages-import-no-admin: frontend/src/features/redeem/Planted.tsx → ${ADMIN_FEATURE}`,
        `shared-frontend-imports-no-feature: frontend/src/components/Shared.tsx → ${ADMIN_FEATURE}`,
      ]);
      // A cycle is reported on one of its arrows.
      const circular = found.filter((v) => v.startsWith('no-circular:'));
      expect(circular.length).toBeGreaterThan(0);
      expect(circular.every((v) => /^no-circular: backend\/src\/modules\/geo\/[ab]\.ts → /.test(v))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a table that names an unknown module, misses a module, or closes a cycle it does not name', () => {
    expect(parseModuleRules(DOC, FOLDERS).modules).toEqual(moduleRules().modules);
    const row = (name: string) => new RegExp(`^\\| ${name} \\|.*$`, 'm');
    const jobsRow = DOC.match(row('jobs'))![0];
    expect(() => parseModuleRules(DOC.replace(row('jobs'), jobsRow.replace('| – | |', '| jobz | |')), FOLDERS)).toThrow(
      'module jobz (row jobs) is no folder of modules/',
    );
    expect(() => parseModuleRules(DOC.replace(row('jobs'), ''), FOLDERS)).toThrow(
      'backend/src/modules/jobs has no row in the module table',
    );
    expect(() =>
      parseModuleRules(DOC.replace(row('jobs'), jobsRow.replace('| – | |', '| retention | |')), FOLDERS),
    ).toThrow("the module table's arrows make a cycle of jobs, retention");
    expect(() => parseModuleRules(DOC.replace(/^\*\*Known cycles\*\*:.*$/m, ''), FOLDERS)).toThrow(
      'arrows make a cycle of',
    );
  });
});
