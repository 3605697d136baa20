/** A field and its message, as a 400 answer's `errors` lists them (docs/product.md §9.1). */
export interface FieldError {
  field: string;
  message: string;
}

/** `String.prototype.isWellFormed` (ES2024, V8's own scan: no unpaired surrogate); the project's lib is ES2022. */
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;

/**
 * Text the application accepts: no NUL character (PostgreSQL refuses it in text and jsonb) and no unpaired UTF-16
 * surrogate (JSON's `"\ud800"` parses to one; it cannot be encoded as UTF-8, validators throw on it, and a jsonb
 * column refuses it). docs/api.md "Bad input".
 */
export function isValidText(text: string): boolean {
  return isWellFormed.call(text) && !text.includes('\u0000');
}

export const invalidTextMessage = (field: string) =>
  `${field || 'The request'} contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate)`;

/** Whether every string of `value` (property names included) is valid text: the common case, with no allocation. */
function allValidText(value: unknown): boolean {
  if (typeof value === 'string') return isValidText(value);
  if (value === null || typeof value !== 'object') return true;
  for (const key in value) {
    if (!isValidText(key) || !allValidText((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * Every string of a parsed request value (body, query, a path parameter), property names included, that is not
 * valid text: one error per field, named by its path (`items.0.name`) as the validation pipe names fields.
 */
export function invalidTextFields(value: unknown, field = ''): FieldError[] {
  if (allValidText(value)) return [];
  if (typeof value === 'string') return [{ field, message: invalidTextMessage(field) }];
  const errors: FieldError[] = [];
  for (const [key, inner] of Object.entries(value as object)) {
    const path = field ? `${field}.${key}` : key;
    // A bad property name is reported on the object that holds it: the name itself cannot be shown.
    if (!isValidText(key)) errors.push({ field, message: invalidTextMessage(field) });
    else errors.push(...invalidTextFields(inner, path));
  }
  return errors;
}
