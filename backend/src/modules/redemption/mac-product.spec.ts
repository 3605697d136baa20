import { isMacProduct } from './redemption-admin.service';

describe('isMacProduct', () => {
  it('is a name containing "mac" in any case (docs/product.md §10.7)', () => {
    expect(isMacProduct('Office 2024 Home & Business (Mac)')).toBe(true);
    expect(isMacProduct('MACOS edition')).toBe(true);
    expect(isMacProduct('Office 2024 Professional Plus (Windows)')).toBe(false);
  });
});
