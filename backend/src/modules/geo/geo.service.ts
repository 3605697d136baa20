import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'geoip-lite';
import { APP_CONFIG, AppConfig } from '../../config/app-config';

@Injectable()
export class GeoService {
  private readonly blocked: Set<string>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.blocked = new Set(config.geoBlockedCountries);
  }

  /** ISO country of an IP address, or null for private, loopback and unknown addresses. */
  country(ip: string): string | null {
    if (!ip) return null;
    return lookup(ip)?.country || null;
  }

  isBlocked(country: string | null): boolean {
    return country !== null && this.blocked.has(country);
  }
}
