import { JSON_TOO_DEEP, jsonNestingDepth, MAX_JSON_DEPTH, verifyJsonDepth } from './json-depth';
import { pick, random, randomInt } from '../../../test/helpers/seed';

const depthOf = (text: string, stopAbove?: number) => jsonNestingDepth(Buffer.from(text, 'utf8'), stopAbove);

/** The nesting of a parsed value, the reference the byte count must agree with. */
function parsedDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const inner = Object.values(value as object).map(parsedDepth);
  return 1 + Math.max(0, ...inner);
}

/** Strings made to confuse a counter: brackets, quotes, backslashes, escapes, multi-byte characters. */
const TRICKY = ['[', ']', '{', '}', '"', '\\', '\\"', '"]', '\\\\', '\u00e9', '\u{1f600}', '\u5b22', '\n', ' ', 'a'];
const randomString = () => Array.from({ length: randomInt(6) }, () => pick(TRICKY)).join('');

function randomValue(depth: number): unknown {
  const kind = depth <= 0 ? randomInt(4) : randomInt(6);
  if (kind === 0) return randomString();
  if (kind === 1) return random() * 1000 - 500;
  if (kind === 2) return pick([true, false, null]);
  if (kind === 3) return [];
  const size = randomInt(4);
  if (kind === 4) return Array.from({ length: size }, () => randomValue(depth - 1));
  return Object.fromEntries(Array.from({ length: size }, (_, i) => [`${randomString()}${i}`, randomValue(depth - 1)]));
}

describe('jsonNestingDepth', () => {
  it.each([
    ['1', 0],
    ['"["', 0],
    ['[]', 1],
    ['{}', 1],
    ['[[],[[]]]', 3],
    ['{"a":{"b":[1,{"c":2}]}}', 4],
    ['["]]]]", "[[[["]', 1],
    ['["\\"[[[", "\\\\", [[]]]', 3],
    ['{"k\\"{": "\\\\\\"[["}', 1],
    ['[ [ [ ] ] ]', 3],
    ['"unterminated [[[', 0],
    [']]]][[', 2],
    ['[[[', 3],
  ])('%s → %i', (text, depth) => {
    expect(depthOf(text)).toBe(depth);
  });

  it('agrees with the parsed value on random JSON, strings full of brackets and escapes included', () => {
    for (let i = 0; i < 500; i++) {
      const value = randomValue(randomInt(40));
      const text = JSON.stringify(value, null, pick([undefined, 0, 1, '\t']));
      expect([text, depthOf(text)]).toEqual([text, parsedDepth(value)]);
    }
  });

  it('stops counting once the depth passes the bound', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(depthOf(deep, 32)).toBe(33);
    expect(depthOf(deep)).toBe(100_000);
  });
});

describe('verifyJsonDepth (the JSON parser’s verify hook)', () => {
  const verify = (text: string, encoding = 'utf-8') =>
    verifyJsonDepth({} as never, {}, Buffer.from(text, encoding === 'utf-16le' ? 'utf16le' : 'utf8'), encoding);
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it(`lets ${MAX_JSON_DEPTH} levels through and refuses ${MAX_JSON_DEPTH + 1} with a 400 the filter words`, () => {
    expect(() => verify(nested(MAX_JSON_DEPTH))).not.toThrow();
    let thrown: unknown;
    try {
      verify(nested(MAX_JSON_DEPTH + 1));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ status: 400, type: JSON_TOO_DEEP, depth: MAX_JSON_DEPTH });
  });

  it('counts a UTF-16 body by its characters, not its bytes', () => {
    // U+5B22 is the bytes 22 5B in UTF-16LE: a quote and a bracket to a byte counter.
    expect(() => verify(`["${'\u5b22'.repeat(80)}"]`, 'utf-16le')).not.toThrow();
    expect(() => verify(nested(MAX_JSON_DEPTH + 1), 'utf-16le')).toThrow();
  });
});
