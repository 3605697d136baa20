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
