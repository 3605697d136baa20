/** docs/product.md §6.4 / §10.1 rules for admin credentials. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_]+$/;
export { NEW_PASSWORD_MAX, NEW_PASSWORD_MIN, NEW_PASSWORD_PATTERN } from '../../config/password-rule';

export const PASSWORD_MESSAGES = {
  currentRequired: 'Current password is required',
  tooShort: 'Password must be at least 12 characters',
  tooLong: 'Password must be at most 128 characters',
  weak: 'Password must contain uppercase, lowercase, number, and special character',
  mismatch: "Passwords don't match",
  currentWrong: 'Current password is incorrect',
  unchanged: 'New password must be different from the current password',
} as const;
