/**
 * The sign-in lockout (docs/product.md §13.2), the same for an account and for a username that has none:
 * LOGIN_LOCKOUT_ATTEMPTS consecutive failures lock the name for LOGIN_LOCKOUT_MINUTES. Failures are forgotten after
 * this many hours without another one, so a username with no account needs no row after that (retention deletes it).
 */
export const LOGIN_FAILURES_FORGOTTEN_HOURS = 24;

/** The lockout rule of the config, and "now" from the injected Clock. */
export interface LockoutRule {
  attempts: number;
  minutes: number;
  now: Date;
}
