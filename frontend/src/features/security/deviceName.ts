import Bowser from 'bowser';

/** "Chrome 140 on Linux" from a session's user agent; "Unknown device" when there is none to read. */
export function deviceName(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const { browser, os } = Bowser.parse(userAgent);
  const major = browser.version?.split('.')[0];
  const name = browser.name ? `${browser.name}${major ? ` ${major}` : ''}` : undefined;
  if (name && os.name) return `${name} on ${os.name}`;
  return name ?? os.name ?? userAgent.slice(0, 60);
}
