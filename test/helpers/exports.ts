import { parse } from 'csv-parse/sync';
import { Clock } from '../../backend/src/common/clock';
import { startTestApp } from './app';
import { NO_MAIL_OUTBOX_ENV } from './processes';
import { bearer, tokenFor } from './auth';
import { randomHex } from './seed';

/** What the export suites share (test/exports-redemptions.e2e-spec.ts, test/exports-codes.e2e-spec.ts). */

export const BOM = '\ufeff';
export const HEADER = [
  'Voucher Code',
  'First Name',
  'Last Name',
  'Email',
  'Phone',
  'Country',
  'Product',
  'Email Status',
  'License Key',
  'Download Link',
  'Redeemed At',
  'Exported At',
  'Refunded At',
];

export function csvRows(text: string): string[][] {
  expect(text.startsWith(BOM)).toBe(true);
  return parse(text.slice(BOM.length), { relax_column_count: false });
}

/** A tag of its own for a test's customers (their e-mail domain), so a search finds only that test's rows. */
export const newTag = () => `exp${randomHex(4)}`;

/**
 * The app of an export suite with an admin's header, its Clock stopped at 2026-03-05 (every filename carries this
 * date; `jest.restoreAllMocks()` restarts it), and `exportedFlags`: [code, exported, has exported_at] per code.
 */
export async function startExportApp() {
  // Redemptions the tests store as `pending` stay pending: the test app's relay (every 200 ms) and sweep (every 500 ms,
  // for e-mails pending over a second) would otherwise send them, and an export read after it would show them `sent`.
  const t = await startTestApp(NO_MAIL_OUTBOX_ENV);
  const auth = bearer(await tokenFor(t, 'admin'));
  jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2026-03-05T10:00:00Z'));
  const exportedFlags = async (codes: string[]): Promise<Array<[string, boolean, boolean]>> =>
    (
      await t.db.query(
        `SELECT v.code, r.exported, r.exported_at FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
          WHERE v.code = ANY($1) ORDER BY v.code`,
        [codes],
      )
    ).map((r: { code: string; exported: boolean; exported_at: Date | null }) => [
      r.code,
      r.exported,
      r.exported_at !== null,
    ]);
  return { t, auth, exportedFlags };
}
