/**
 * The staff password rule (docs/product.md §6.4 / §10.1): 12 to 128 characters with a lower-case letter, an
 * upper-case letter, a digit and one of @$!%*?& (other characters are allowed too). Here because the start-up check of
 * ADMIN_PASSWORD applies it too; auth's DTOs import it from here.
 */
export const NEW_PASSWORD_MIN = 12;
export const NEW_PASSWORD_MAX = 128;
export const NEW_PASSWORD_PATTERN = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[@$!%*?&]).*$/s;
/** The registration message (docs/product.md §6.4) for a password that misses one of the four kinds of character. */
export const PASSWORD_COMPOSITION_MESSAGE = 'Password must contain uppercase, lowercase, number and special character';
