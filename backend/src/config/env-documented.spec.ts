import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

const CONFIG_DIR = __dirname;
const ROOT = join(__dirname, '..', '..', '..');

/** Every environment variable the configuration reads: `int(env, 'NAME', …)` and the like, and `env.NAME`. */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(CONFIG_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
    const source = readFileSync(join(CONFIG_DIR, file), 'utf8');
    for (const m of source.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]);
    for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b/g)) names.add(m[1]);
    for (const m of source.matchAll(/\benv\['([A-Z][A-Z0-9_]+)'\]/g)) names.add(m[1]);
  }
  return [...names].sort();
}

describe('configuration: every variable the service reads is documented', () => {
  const read = variablesRead();

  it('reads the variables it is known to read (the scan finds them)', () => {
    expect(read).toEqual(expect.arrayContaining(['DATABASE_URL', 'JOB_LOCK_MS', 'REDIS_URL', 'TZ']));
  });

  it('.env.example names each, set or commented out', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    expect(read.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example))).toEqual([]);
  });

  it("README.md's configuration table names each", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(read.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
