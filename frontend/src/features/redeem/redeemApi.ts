/** docs/product.md §10.7: a product name containing "mac" (any case) is a Mac product. */
export function isMacProduct(productName: string | undefined): boolean {
  return !!productName && productName.toLowerCase().includes('mac');
}

export function successPath(productName: string | undefined, token: string): string {
  return `/success/${isMacProduct(productName) ? 'mac' : 'windows'}?token=${encodeURIComponent(token)}`;
}
