import { neutraliseCell } from './csv-safety';

describe('neutraliseCell', () => {
  it.each([
    ['=HYPERLINK("x")', `'=HYPERLINK("x")`],
    ['+1 302 555 0100', `'+1 302 555 0100`],
    ['-2+3', `'-2+3`],
    ['@SUM(A1)', `'@SUM(A1)`],
    ['\tTAB', `'\tTAB`],
    ['\rCR', `'\rCR`],
    ['＝HYPERLINK("x")', `'＝HYPERLINK("x")`],
    ['＋1 302', `'＋1 302`],
    ['－2＋3', `'－2＋3`],
    ['＠SUM(A1)', `'＠SUM(A1)`],
  ])('prefixes %j', (value, expected) => {
    expect(neutraliseCell(value)).toBe(expected);
  });

  it('leaves ordinary text, numbers and inner formula characters alone', () => {
    expect(neutraliseCell('Ann = Lee')).toBe('Ann = Lee');
    expect(neutraliseCell('ABC-123')).toBe('ABC-123');
    expect(neutraliseCell(42)).toBe('42');
  });

  it('writes dates as ISO 8601 and null as empty', () => {
    expect(neutraliseCell(new Date('2026-03-05T10:00:00Z'))).toBe('2026-03-05T10:00:00.000Z');
    expect(neutraliseCell(null)).toBe('');
    expect(neutraliseCell(undefined)).toBe('');
  });
});
