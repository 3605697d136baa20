import { createHash, randomBytes } from 'crypto';

export const RECOVERY_CODE_COUNT = 10;
/** 32 symbols without the look-alikes 0/O and 1/I: every character carries 5 bits, a code 80. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const GROUPS = 4;
const GROUP_LENGTH = 4;

/** A new recovery code, e.g. `K7QM-2XWD-R9PA-HT4C` (16 random symbols: 256 is a multiple of 32, so no bias). */
export function newRecoveryCode(): string {
  const bytes = randomBytes(GROUPS * GROUP_LENGTH);
  const symbols = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return symbols.match(new RegExp(`.{${GROUP_LENGTH}}`, 'g'))!.join('-');
}

export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, newRecoveryCode);
}

/** Case, spaces and hyphens do not matter when a code is typed back. */
export function normaliseRecoveryCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

/** What is stored: the SHA-256 (hex) of the normalised code. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');
}
