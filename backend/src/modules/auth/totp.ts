import { generateSecret, generateURI, verifySync } from 'otplib';

export const TOTP_STEP_SECONDS = 30;

/** A new base32 secret of 20 bytes (32 characters, the column's limit; RFC 4226 recommends 160 bits). */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/**
 * The RFC 6238 time step a code belongs to, accepting the previous, current and next step (±1 for
 * clock drift), or null when it matches none. `now` (ms) is the caller's Clock. The caller makes the step single-use.
 */
export function totpStep(code: string, secret: string, now: number): number | null {
  const epoch = Math.floor(now / 1000);
  try {
    // A tolerance of one period each way checks exactly the previous, current and next step.
    const result = verifySync({ secret, token: code, epoch, epochTolerance: TOTP_STEP_SECONDS });
    return result.valid ? Math.floor(epoch / TOTP_STEP_SECONDS) + result.delta : null;
  } catch {
    // A malformed secret or a token that is not 6 digits.
    return null;
  }
}

export function otpauthUrl(accountName: string, issuer: string, secret: string): string {
  return generateURI({ issuer, label: accountName, secret });
}
