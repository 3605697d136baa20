import { Inject, Injectable } from '@nestjs/common';
import { existsSync, mkdirSync, symlinkSync } from 'fs';
import { dirname, join } from 'path';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

type Lookup = (ip: string) => { country: string } | null;

/*
 * geoip-lite loads its city database (about 150 MB of RAM) when the files are there and falls back to
 * the country database (about 15 MB) when they are not. Only the country is needed, so it is pointed
 * at a folder holding links to the two country files.
 */
function loadCountryLookup(dataDir: string): Lookup {
  const source = join(dirname(require.resolve('geoip-lite/package.json')), 'data');
  const target = join(dataDir, 'geoip-country');
  mkdirSync(target, { recursive: true });
  for (const file of ['geoip-country.dat', 'geoip-country6.dat']) {
    try {
      if (!existsSync(join(target, file))) symlinkSync(join(source, file), join(target, file));
    } catch (err) {
      // Another process (a second instance, a worker) made the same link first.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  (global as { geodatadir?: string }).geodatadir = target;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('geoip-lite').lookup;
}

@Injectable()
export class GeoService {
  private readonly blocked: Set<string>;
  private readonly lookup: Lookup;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.blocked = new Set(config.geoBlockedCountries);
    this.lookup = loadCountryLookup(config.dataDir);
  }

  /** ISO country of an IP address, or null for private, loopback and unknown addresses. */
  country(ip: string): string | null {
    if (!ip) return null;
    return this.lookup(ip)?.country || null;
  }

  isBlocked(country: string | null): boolean {
    return country !== null && this.blocked.has(country);
  }
}
