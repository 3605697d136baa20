const MASK = '•';
const MANUAL_PREFIX = 'MANUAL_';

/**
 * docs/product.md §10.6 licence key masking (the console's `maskLicenseKey`, same result): keys shorter than 8 characters
 * are shown as they are; dash-separated keys (three groups or more) keep their first and last groups and
 * mask the middle ones; any other key shows its first 4 and last 4 characters. A stored manual key keeps
 * its `MANUAL_` prefix (the console strips it) and the key behind it is masked. Applied only by `maskInventory`
 * (common/inventory), which decides who sees what.
 */
export function maskLicenseKey(key: string): string;
export function maskLicenseKey(key: string | null | undefined): string | null | undefined;
export function maskLicenseKey(key: string | null | undefined): string | null | undefined {
  if (typeof key !== 'string') return key;
  if (key.startsWith(MANUAL_PREFIX)) return MANUAL_PREFIX + maskLicenseKey(key.slice(MANUAL_PREFIX.length));
  if (key.length < 8) return key;
  const groups = key.split('-');
  if (groups.length >= 3) {
    return groups.map((group, i) => (i === 0 || i === groups.length - 1 ? group : MASK.repeat(group.length))).join('-');
  }
  return key.slice(0, 4) + MASK.repeat(key.length - 8) + key.slice(-4);
}
