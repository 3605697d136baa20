import { readFileSync } from 'fs';
import { join } from 'path';

// The built app (the project's global setup builds it when stale): what a first visit to `/` downloads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { redeemPageFirstLoad } = require('../../scripts/frontend-size.js');

describe('built web app', () => {
  it('the redeem page loads under 200 KB of gzipped JavaScript and no admin code', () => {
    const { sizes, totalGzip, budget } = redeemPageFirstLoad() as { sizes: { file: string }[]; totalGzip: number; budget: number };
    expect(totalGzip).toBeLessThan(budget);
    expect(sizes.map((s) => s.file).filter((f) => /AdminApp/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'frontend', 'dist', '.vite', 'manifest.json'), 'utf8'));
    expect(manifest['src/features/admin/AdminApp.tsx'].isDynamicEntry).toBe(true);
  });
});
