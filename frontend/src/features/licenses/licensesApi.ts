import type * as Api from '../../api';

export type LicenseType = Api.LicenseKeyResponse['licenseType'];
export type UsageStatus = Api.LicenseKeyResponse['usageStatus'];

export type LicenseKey = Api.LicenseKeyResponse;

export type LicenseKeySummary = Api.LicenseKeySummaryResponse;

export type LicenseKeysPage = Api.LicenseKeyListResponse;

export interface LicenseKeysQuery {
  page: number;
  limit: number;
  productId: string;
  search: string;
}

export type LicenseManagedProduct = Api.LicenseManagedProductResponse;

export type CreateLicenseKeyRequest = Api.CreateLicenseKeyDto;

/** The list's arguments as the API takes them: an empty product or search is left out, the search trimmed. */
export function licenseKeysArg({
  page,
  limit,
  productId,
  search,
}: LicenseKeysQuery): Api.LicenseKeyControllerListApiArg {
  return { page, limit, productId: productId || undefined, search: search.trim() || undefined };
}
