import { NotFoundException, ParseUUIDPipe } from '@nestjs/common';

export const REDEMPTION_ADMIN_MESSAGES = {
  notFound: 'Redemption not found',
  macProduct: 'Mac products are activated automatically and take no license key.',
  notLicenseManaged: 'This product is not license-managed: its key comes from the product settings.',
  awaitingLicense: 'This redemption has no license key yet. Assign one first; the e-mail is sent with it.',
  /** Held for review, or refused in review (docs/product.md §25.2): no key and no order e-mail but by Approve. */
  heldForReview: 'This redemption is held for review: approve it in the Review tab to deliver its licence.',
} as const;

/** docs/product.md §10.7: a product name containing "mac" (any case) is a Mac product. */
export function isMacProduct(name: string): boolean {
  return /mac/i.test(name);
}

/** The `:id` of a redemption route: anything but a UUID is a redemption that does not exist (404). */
export const redemptionIdPipe = new ParseUUIDPipe({
  exceptionFactory: () => new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound),
});
