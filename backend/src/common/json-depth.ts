import type { IncomingMessage } from 'http';

/** The deepest nesting of arrays and objects a JSON request body may have (docs/api.md "Bad input"). */
export const MAX_JSON_DEPTH = 32;

/** body-parser's error `type` for a body nested deeper than MAX_JSON_DEPTH (the exception filter words it). */
export const JSON_TOO_DEEP = 'entity.too.deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * How deeply arrays and objects nest in a JSON text given as UTF-8 bytes, counted in one pass over the bytes without
 * parsing: brackets inside strings (escaped quotes included) do not count. Stops as soon as the depth passes
 * `stopAbove` and answers that depth. Malformed text is counted as far as it goes (the parser refuses it afterwards).
 * Every byte that matters is ASCII, which never occurs inside a multi-byte UTF-8 sequence.
 */
export function jsonNestingDepth(bytes: Uint8Array, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPEN.has(byte)) {
      if (++depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    } else if (CLOSE.has(byte) && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/**
 * body-parser's `verify` hook of the JSON parser: runs on the raw body before JSON.parse, and refuses one nested deeper
 * than MAX_JSON_DEPTH with a 400 (`JSON_TOO_DEEP`). A deep body is no request of this API, and every step after the
 * parse (validation, the text check, class-transformer) walks it recursively: ~1,400 levels answered 500. A body in
 * UTF-16 is decoded to count it; one in an encoding TextDecoder lacks (UTF-32) is counted over its raw bytes.
 */
export function verifyJsonDepth(_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string): void {
  const depth = jsonNestingDepth(utf8Of(body, encoding), MAX_JSON_DEPTH);
  if (depth <= MAX_JSON_DEPTH) return;
  throw Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), {
    status: 400,
    type: JSON_TOO_DEEP,
    depth: MAX_JSON_DEPTH,
  });
}

function utf8Of(body: Buffer, encoding: string): Uint8Array {
  if (/^utf-?8$/i.test(encoding)) return body;
  try {
    return Buffer.from(new TextDecoder(encoding).decode(body), 'utf8');
  } catch {
    return body;
  }
}
