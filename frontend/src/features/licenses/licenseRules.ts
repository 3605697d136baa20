import type { LicenseKey, UsageStatus } from './licensesApi';

/** docs/product.md §6.2 batch entry: one key per line; lines trimmed, empty lines dropped. */
export function parseBatchKeys(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** docs/product.md §5.5 licence usage: Available at 0 activations, Partially Used below the maximum (default 1), Fully Used at or above it. */
export function usageStatusOf(key: Pick<LicenseKey, 'currentActivations' | 'maxActivations'>): UsageStatus {
  const max = key.maxActivations || 1;
  if (key.currentActivations <= 0) return 'available';
  return key.currentActivations < max ? 'partially-used' : 'fully-used';
}

export const USAGE_LABELS: Record<UsageStatus, string> = {
  available: 'Available',
  'partially-used': 'Partially Used',
  'fully-used': 'Fully Used',
};

const USAGE_RANK: Record<UsageStatus, number> = { available: 0, 'partially-used': 1, 'fully-used': 2 };

/** docs/product.md §5.5 list order: available, then partially used, then fully used; newest first within each group. */
export function sortByUsage<T extends Pick<LicenseKey, 'currentActivations' | 'maxActivations' | 'createdAt'>>(
  keys: readonly T[],
): T[] {
  return [...keys].sort(
    (a, b) =>
      USAGE_RANK[usageStatusOf(a)] - USAGE_RANK[usageStatusOf(b)] || Date.parse(b.createdAt) - Date.parse(a.createdAt),
  );
}

export const LICENSE_TYPE_LABELS = { 'single-user': 'Single User', volume: 'Volume License' } as const;
