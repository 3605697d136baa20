/**
 * A voucher code's shape (docs/product/validation.md, the redeem form's `voucherCode`): letters, digits, hyphen and
 * underscore, at most 100 characters. The redeem form checks it, and an upload or a void file counts any other line
 * invalid.
 */
export const VOUCHER_CODE_PATTERN = /^[A-Za-z0-9_-]+$/;
export const MAX_CODE_LENGTH = 100;
