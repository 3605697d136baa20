const MASK = '•';

/**
 * docs/product.md §10.6 licence key display masking: keys shorter than 8 characters are shown as they are; dash-separated
 * keys (three groups or more) keep their first and last groups and mask the middle ones; any other key
 * shows its first 4 and last 4 characters.
 */
export function maskLicenseKey(key: string): string {
  if (key.length < 8) return key;
  const groups = key.split('-');
  if (groups.length >= 3) {
    return groups.map((group, i) => (i === 0 || i === groups.length - 1 ? group : MASK.repeat(group.length))).join('-');
  }
  return key.slice(0, 4) + MASK.repeat(key.length - 8) + key.slice(-4);
}
