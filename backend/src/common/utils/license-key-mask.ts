const MASK = '•';
const MANUAL_PREFIX = 'MANUAL_';

/**
 * SPEC §9 licence key masking (the console's `maskLicenseKey`, same result): keys shorter than 8 characters
 * are shown as they are; dash-separated keys (three groups or more) keep their first and last groups and
 * mask the middle ones; any other key shows its first 4 and last 4 characters. A stored manual key keeps
 * its `MANUAL_` prefix (the console strips it) and the key behind it is masked.
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

/**
 * The one place that decides what a caller sees of a licence key (DECISIONS §7): the key itself with
 * `licenses.view`, the SPEC §9 mask without. Applied in services and responses, never in SQL.
 */
export function licenseKeyFor(reveal: boolean, key: string | null | undefined): string | null | undefined {
  return reveal ? key : maskLicenseKey(key);
}
