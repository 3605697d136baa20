import { Injectable } from '@nestjs/common';

/**
 * "Now" for anything that computes periods, limits or dated names (statistics, export file names, session caps,
 * attempt windows, TOTP steps). Injected rather than read from `new Date()` so a test can fix the time.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
