import { readFileSync } from 'fs';
import { join } from 'path';

// The built app (the project's global setup builds it when stale): what a first visit to a page downloads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { redeemPageFirstLoad, pageFirstLoad } = require('../../scripts/frontend-size.js');

const manifest = () =>
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'frontend', 'dist', '.vite', 'manifest.json'), 'utf8'));
const fileOf = (module: string): string => manifest()[module].file;

describe('built web app', () => {
  it('the redeem page loads under 200 KB of gzipped JavaScript and no admin code', () => {
    const { sizes, totalGzip, budget } = redeemPageFirstLoad() as {
      sizes: { file: string }[];
      totalGzip: number;
      budget: number;
    };
    expect(totalGzip).toBeLessThan(budget);
    expect(sizes.map((s) => s.file).filter((f) => /AdminApp/.test(f))).toEqual([]);
    expect(manifest()['src/features/admin/AdminApp.tsx'].isDynamicEntry).toBe(true);
  });

  it('loads dialog code only when a dialog opens: the redeem page first load has no failure dialog', () => {
    const files: string[] = pageFirstLoad('src/features/redeem/RedeemPage.tsx');
    expect(manifest()['src/features/redeem/RedemptionFailedDialog.tsx'].isDynamicEntry).toBe(true);
    expect(files).not.toContain(fileOf('src/features/redeem/RedemptionFailedDialog.tsx'));
  });

  it('the licence centre (/my-licences) loads no admin code', () => {
    const files: string[] = pageFirstLoad('src/features/licence-centre/MyLicencesPage.tsx');
    expect(files).not.toContain(fileOf('src/features/admin/AdminApp.tsx'));
    expect(files.filter((f) => /AdminApp|LiveLayout|Dashboard/.test(f))).toEqual([]);
  });

  it('the admin login loads neither the signed-in screens nor the socket.io client', () => {
    const files: string[] = pageFirstLoad('src/features/admin/AdminApp.tsx');
    for (const screen of [
      'src/features/dashboard/DashboardPage.tsx',
      'src/features/vouchers/VoucherCodesPage.tsx',
      'src/features/admin/LiveLayout.tsx',
    ]) {
      expect(files).not.toContain(fileOf(screen));
    }
    const code = files.map((f) => readFileSync(join(__dirname, '..', '..', 'frontend', 'dist', f), 'utf8')).join('\n');
    expect(code).not.toContain('socket.io');
  });
});
