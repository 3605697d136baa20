import type { RedeemVoucherDto } from '../../api';

/**
 * docs/product.md §6.1 redemption form rules, the same rules and messages the server applies (RedeemVoucherDto), checked
 * in the same order so the first message a field shows is the one the server would answer.
 */
export interface RedeemFormValues {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  voucherCode: string;
  acceptPrivacyPolicy: boolean;
}

export type RedeemField = keyof RedeemFormValues;
export type RedeemErrors = Partial<Record<RedeemField, string>>;

export const LIMITS = { voucherCode: 100, name: 50, email: 254, phone: 20 } as const;
/** Success indicators (docs/product.md §2.2): voucher field from 8 characters, phone field from 10. */
export const VOUCHER_OK_LENGTH = 8;
export const PHONE_OK_LENGTH = 10;

export const MESSAGES = {
  voucherRequired: 'Voucher code is required',
  voucherTooLong: 'Voucher code too long',
  voucherFormat: 'Invalid voucher code format',
  emailInvalid: 'Invalid email address',
  emailTooLong: 'Email address too long',
  phoneTooLong: 'Phone number too long',
  phoneFormat: 'Invalid phone number format',
  acceptPolicy: 'You must accept the privacy policy and terms & conditions to proceed',
} as const;

const VOUCHER_PATTERN = /^[A-Za-z0-9_-]+$/;
const NAME_PATTERN = /^[\p{L}\p{M}\s'-]+$/u;
const PHONE_PATTERN = /^\+?[1-9][\d\s\-().]{7,15}$/;
const EMAIL_PATTERN =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,}$/;

function nameError(label: 'First name' | 'Last name', raw: string): string | undefined {
  const value = raw.trim();
  if (!value) return `${label} is required`;
  if (value.length > LIMITS.name) return `${label} too long`;
  if (!NAME_PATTERN.test(value)) return `${label} contains invalid characters`;
  return undefined;
}

/** The message for one field, or undefined when it is valid. */
export function validateField<F extends RedeemField>(field: F, raw: RedeemFormValues[F]): string | undefined {
  switch (field) {
    case 'voucherCode': {
      const value = String(raw).trim();
      if (!value) return MESSAGES.voucherRequired;
      if (value.length > LIMITS.voucherCode) return MESSAGES.voucherTooLong;
      if (!VOUCHER_PATTERN.test(value)) return MESSAGES.voucherFormat;
      return undefined;
    }
    case 'firstName':
      return nameError('First name', String(raw));
    case 'lastName':
      return nameError('Last name', String(raw));
    case 'email': {
      const value = String(raw).trim().toLowerCase();
      if (!EMAIL_PATTERN.test(value)) return MESSAGES.emailInvalid;
      if (value.length > LIMITS.email) return MESSAGES.emailTooLong;
      return undefined;
    }
    case 'phone': {
      const value = String(raw).trim();
      if (!value) return undefined;
      if (value.length > LIMITS.phone) return MESSAGES.phoneTooLong;
      if (!PHONE_PATTERN.test(value)) return MESSAGES.phoneFormat;
      return undefined;
    }
    case 'acceptPrivacyPolicy':
      return raw === true ? undefined : MESSAGES.acceptPolicy;
    default:
      return undefined;
  }
}

/** Fields in the server's checking order. */
export const FIELD_ORDER: RedeemField[] = [
  'voucherCode',
  'firstName',
  'lastName',
  'email',
  'phone',
  'acceptPrivacyPolicy',
];

export function validateForm(values: RedeemFormValues): RedeemErrors {
  const errors: RedeemErrors = {};
  for (const field of FIELD_ORDER) {
    const message = validateField(field, values[field]);
    if (message) errors[field] = message;
  }
  return errors;
}

/** The voucher input upper-cases as typed. */
export function normaliseVoucherInput(value: string): string {
  return value.toUpperCase();
}

/** The request body of POST /api/redeem-voucher (values trimmed, e-mail lower-cased, code upper-cased). */
export function toRedeemRequest(
  values: RedeemFormValues,
  extras: { submissionTime: string; website: string; company_website: string },
): RedeemVoucherDto {
  return {
    voucherCode: values.voucherCode.trim().toUpperCase(),
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    email: values.email.trim().toLowerCase(),
    phone: values.phone.trim(),
    acceptPrivacyPolicy: values.acceptPrivacyPolicy,
    submissionTime: extras.submissionTime,
    website: extras.website,
    company_website: extras.company_website,
  };
}
