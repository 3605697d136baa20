import { isMacProduct } from '../../modules/redemption/redemption-admin.service';
import { likeContains, returnedRows } from './sql';

describe('returnedRows', () => {
  it('takes the rows out of an UPDATE/DELETE result and passes other results through', () => {
    expect(returnedRows([[{ id: 'a' }], 1])).toEqual([{ id: 'a' }]);
    expect(returnedRows([[], 0])).toEqual([]);
    expect(returnedRows([{ id: 'a' }, { id: 'b' }])).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(returnedRows([])).toEqual([]);
  });
});

describe('likeContains', () => {
  it('matches the text anywhere, with LIKE wildcards taken literally', () => {
    expect(likeContains('ab')).toBe('%ab%');
    expect(likeContains('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});

describe('isMacProduct', () => {
  it('is a name containing "mac" in any case (SPEC §9)', () => {
    expect(isMacProduct('Office 2024 Home & Business (Mac)')).toBe(true);
    expect(isMacProduct('MACOS edition')).toBe(true);
    expect(isMacProduct('Office 2024 Professional Plus (Windows)')).toBe(false);
  });
});
