import { parseBatchKeys, sortByUsage, usageStatusOf } from './licenseRules';

describe('batch entry parsing', () => {
  it('takes one key a line, trimmed, without empty lines', () => {
    expect(parseBatchKeys('AAAAA-11111\r\n\n   BBBBB-22222   \n \t \nccccc-33333\n')).toEqual([
      'AAAAA-11111',
      'BBBBB-22222',
      'ccccc-33333',
    ]);
    expect(parseBatchKeys('')).toEqual([]);
    expect(parseBatchKeys('\n  \n')).toEqual([]);
  });
});

describe('licence usage', () => {
  it('is Available at 0 activations, Partially Used below the maximum, Fully Used at or above it (default maximum 1)', () => {
    expect(usageStatusOf({ currentActivations: 0, maxActivations: 5 })).toBe('available');
    expect(usageStatusOf({ currentActivations: 4, maxActivations: 5 })).toBe('partially-used');
    expect(usageStatusOf({ currentActivations: 5, maxActivations: 5 })).toBe('fully-used');
    expect(usageStatusOf({ currentActivations: 6, maxActivations: 5 })).toBe('fully-used');
    expect(usageStatusOf({ currentActivations: 1, maxActivations: 0 })).toBe('fully-used');
    expect(usageStatusOf({ currentActivations: 0, maxActivations: 1 })).toBe('available');
  });

  it('orders available, then partially used, then fully used, newest first within each group', () => {
    const key = (name: string, currentActivations: number, maxActivations: number, createdAt: string) => ({
      name,
      currentActivations,
      maxActivations,
      createdAt,
    });
    const sorted = sortByUsage([
      key('full-old', 1, 1, '2025-01-01T00:00:00Z'),
      key('avail-old', 0, 1, '2025-01-01T00:00:00Z'),
      key('part-new', 2, 5, '2025-03-01T00:00:00Z'),
      key('full-new', 5, 5, '2025-03-01T00:00:00Z'),
      key('avail-new', 0, 3, '2025-03-01T00:00:00Z'),
      key('part-old', 1, 5, '2025-01-01T00:00:00Z'),
    ]);
    expect(sorted.map((k) => k.name)).toEqual([
      'avail-new',
      'avail-old',
      'part-new',
      'part-old',
      'full-new',
      'full-old',
    ]);
  });
});
