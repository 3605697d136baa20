import { invalidTextFields, invalidTextMessage, isValidText } from './input-text';

describe('isValidText', () => {
  it('accepts any well-formed text, characters outside the BMP (surrogate pairs) included', () => {
    for (const text of ['', 'plain', 'Zoë Ünal', '日本語', 'rocket 🚀 and 𝄞', '\t\n\r']) {
      expect(isValidText(text)).toBe(true);
    }
  });

  it('refuses NUL and every unpaired surrogate: alone, at either end, reversed, or doubled', () => {
    const bad = ['\u0000', 'a\u0000b', '\ud800', 'a\ud800', '\udc00b', 'a\udc00\ud800b', '\ud800\ud800', '🚀'[0]];
    for (const text of bad) {
      expect(isValidText(text)).toBe(false);
    }
  });
});

describe('invalidTextFields', () => {
  it('names every bad string by its path, as the validation pipe names fields', () => {
    const body = { name: 'ok', email: 'a\ud800', items: [{ code: 'fine' }, { code: 'x\u0000' }], n: 3, flag: null };
    expect(invalidTextFields(body)).toEqual([
      { field: 'email', message: invalidTextMessage('email') },
      { field: 'items.1.code', message: invalidTextMessage('items.1.code') },
    ]);
  });

  it('a bad property name is reported on the object that holds it; a named parameter by its name', () => {
    expect(invalidTextFields({ filter: { 'a\u0000': 1 } })).toEqual([
      { field: 'filter', message: invalidTextMessage('filter') },
    ]);
    expect(invalidTextFields('a\u0000', 'token')).toEqual([{ field: 'token', message: invalidTextMessage('token') }]);
    expect(invalidTextFields({ fine: 'yes', list: ['a', 'b'] })).toEqual([]);
  });
});
