import type { FieldError } from './validation';

/**
 * Text the application accepts: no NUL character (PostgreSQL refuses it in text and jsonb) and no unpaired UTF-16
 * surrogate (JSON's `"\ud800"` parses to one; it cannot be encoded as UTF-8, validators throw on it, and a jsonb
 * column refuses it). docs/api.md "Bad input".
 */
// eslint-disable-next-line no-control-regex -- NUL is one of the characters looked for
const INVALID_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isValidText(text: string): boolean {
  return !INVALID_TEXT.test(text);
}

export const invalidTextMessage = (field: string) =>
  `${field || 'The request'} contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate)`;

/**
 * Every string of a parsed request value (body, query, a path parameter), property names included, that is not
 * valid text: one error per field, named by its path (`items.0.name`) as the validation pipe names fields.
 */
export function invalidTextFields(value: unknown, field = ''): FieldError[] {
  if (typeof value === 'string') return isValidText(value) ? [] : [{ field, message: invalidTextMessage(field) }];
  if (value === null || typeof value !== 'object') return [];
  const errors: FieldError[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const path = field ? `${field}.${key}` : key;
    // A bad property name is reported on the object that holds it: the name itself cannot be shown.
    if (!isValidText(key)) errors.push({ field, message: invalidTextMessage(field) });
    else errors.push(...invalidTextFields(inner, path));
  }
  return errors;
}
