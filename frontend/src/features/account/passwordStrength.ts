/** docs/product.md §5.9 password strength: five criteria; weak under 3 met, medium at 3, strong at 4 or more. */
export const STRENGTH_CRITERIA = [
  { id: 'length', label: 'At least 12 characters', test: (p: string) => p.length >= 12 },
  { id: 'lowercase', label: 'Lowercase letter', test: (p: string) => /[a-z]/.test(p) },
  { id: 'uppercase', label: 'Uppercase letter', test: (p: string) => /[A-Z]/.test(p) },
  { id: 'digit', label: 'Number', test: (p: string) => /\d/.test(p) },
  { id: 'special', label: 'Special character', test: (p: string) => /[^A-Za-z0-9]/.test(p) },
] as const;

export type StrengthLevel = 'weak' | 'medium' | 'strong';

export interface PasswordStrength {
  met: number;
  level: StrengthLevel;
  criteria: Array<{ id: string; label: string; met: boolean }>;
}

export function passwordStrength(password: string): PasswordStrength {
  const criteria = STRENGTH_CRITERIA.map((c) => ({ id: c.id, label: c.label, met: c.test(password) }));
  const met = criteria.filter((c) => c.met).length;
  return { met, level: met >= 4 ? 'strong' : met === 3 ? 'medium' : 'weak', criteria };
}

/** docs/product.md §6.4 change-password rules, in order; the first failing one is the message. */
export interface ChangePasswordErrors {
  currentPassword?: string;
  newPassword?: string;
  confirmPassword?: string;
}

export function validateChangePassword(v: {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}): ChangePasswordErrors {
  const errors: ChangePasswordErrors = {};
  if (!v.currentPassword) errors.currentPassword = 'Current password is required';
  if (v.newPassword.length < 12) errors.newPassword = 'Password must be at least 12 characters';
  else if (
    !/[a-z]/.test(v.newPassword) ||
    !/[A-Z]/.test(v.newPassword) ||
    !/\d/.test(v.newPassword) ||
    !/[@$!%*?&]/.test(v.newPassword)
  ) {
    errors.newPassword = 'Password must contain uppercase, lowercase, number, and special character';
  } else if (v.newPassword.length > 128) errors.newPassword = 'Password must be at most 128 characters';
  if (v.confirmPassword !== v.newPassword) errors.confirmPassword = "Passwords don't match";
  return errors;
}
