import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** The WCAG 2.1 level A and AA rules of axe-core (2.0's included). */
export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Fails with every axe-core WCAG 2.1 A/AA violation (and heading-order) on the page as it is now, one line per rule with the
 * elements it found (CSS selectors). Transitions (dialog fade-in, ripples) are let finish first, so colours are
 * judged as they settle (endless spinners excepted). Add a screen in one line: `await expectNoAxeViolations(page)`;
 * `exclude` leaves out content the app does not author (CSS selectors), e.g. a preview of an e-mail.
 */
export async function expectNoAxeViolations(page: Page, opts: { exclude?: string[] } = {}): Promise<void> {
  // A spinner runs forever: only transitions that end are waited for. (A string: the tests compile without DOM types.)
  await page.evaluate(`Promise.all(document.getAnimations()
    .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
    .map((animation) => animation.finished.catch(() => undefined)))`);
  // Plus axe's heading-order (a best practice Lighthouse counts): headings do not skip levels.
  let axe = new AxeBuilder({ page }).options({
    runOnly: { type: 'tag', values: WCAG_21_AA },
    rules: { 'heading-order': { enabled: true } },
    resultTypes: ['violations'],
  });
  // axe.run in the page itself: the default (runPartial, then finishRun in a new blank page of the context) opened a
  // page per check and took twice as long. Its gain, judging cross-origin frames, does not apply: the app's one
  // frame, the sandboxed e-mail preview, shows what staff wrote and is excluded where it appears.
  axe = axe.setLegacyMode(true);
  for (const selector of opts.exclude ?? []) axe = axe.exclude(selector);
  const { violations } = await axe.analyze();
  const where = new URL(page.url()).pathname;
  const found = violations.map(
    (v) => `${v.id} (${v.impact}) on ${where}: ${v.help} → ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`,
  );
  expect(found).toEqual([]);
}
