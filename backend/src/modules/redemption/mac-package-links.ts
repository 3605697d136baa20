import { isMacProduct } from './redemption-admin.messages';

/** The vendor's Office Removal Tool, the link of a Mac product without one of its own (as on the Mac success page). */
export const VENDOR_REMOVAL_TOOL_LINK = 'https://go.microsoft.com/fwlink/?linkid=849815';

/** The columns the links are made of: the product's (`products`) and its latest key's download link, if any. */
export interface PackageLinkColumns {
  product_name: string;
  is_license_managed: boolean;
  activation_link: string | null;
  removal_tool_link: string | null;
  /** The download link of the redemption's latest key (`latestLicenseKeySql`); null: no key. */
  license_link: string | null;
}

export interface MacPackageLinks {
  /** The customer's licence package (License Activation); null: none yet (or not a Mac product). */
  activationLink: string | null;
  /** The Office Removal Tool; null: not a Mac product. */
  removalToolLink: string | null;
}

/**
 * docs/product.md §12.7: a Mac product's package links for one redemption. A licence-managed Mac product's licence
 * package is the customer's own, their key's download link; any other Mac product's is the product's
 * `activationLink`. The Removal Tool is the product's link, else the vendor's. The order e-mail, the licence centre
 * and the redemption details all read them from here.
 */
export function macPackageLinks(row: PackageLinkColumns): MacPackageLinks {
  if (!isMacProduct(row.product_name)) return { activationLink: null, removalToolLink: null };
  return {
    activationLink: (row.is_license_managed ? row.license_link : row.activation_link) || null,
    removalToolLink: row.removal_tool_link || VENDOR_REMOVAL_TOOL_LINK,
  };
}
