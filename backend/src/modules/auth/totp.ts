import { authenticator } from 'otplib';

export const TOTP_STEP_SECONDS = 30;

/** A new base32 secret of 20 bytes (32 characters, the column's limit; RFC 4226 recommends 160 bits). */
export function newTotpSecret(): string {
  return authenticator.generateSecret(20);
}

/**
 * The RFC 6238 time step a code belongs to, accepting the previous, current and next step (±1 for
 * clock drift), or null when it matches none. The caller makes the step single-use.
 */
export function totpStep(code: string, secret: string, now = Date.now()): number | null {
  let delta: number | null;
  try {
    delta = authenticator.clone({ window: 1, epoch: now }).checkDelta(code, secret);
  } catch {
    return null;
  }
  return delta === null ? null : Math.floor(now / 1000 / TOTP_STEP_SECONDS) + delta;
}

export function otpauthUrl(accountName: string, issuer: string, secret: string): string {
  return authenticator.keyuri(accountName, issuer, secret);
}
