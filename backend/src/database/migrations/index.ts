import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { SeedProducts1763700000001 } from './1763700000001-seed-products';
import { VoucherDataIndexes1763700000010 } from './1763700000010-voucher-data-indexes';
import { AdminSearchTrigramIndexes1763700000410 } from './1763700000410-admin-search-trigram-indexes';
import { AuthRefreshRotation1763700003000 } from './1763700003000-auth-refresh-rotation';
import { BenchIndexCleanup1763700005000 } from './1763700005000-bench-index-cleanup';
import { LicenseKeyListIndex1763700005010 } from './1763700005010-license-key-list-index';
import { DropDeadSuccessTokenColumns1763700006000 } from './1763700006000-drop-dead-success-token-columns';
import { KeysAtRest1763700007000 } from './1763700007000-keys-at-rest';
import { AuthAttemptsRefreshFamily1763700008000 } from './1763700008000-auth-attempts-refresh-family';
import { RedemptionsCustomerRestrict1763700009100 } from './1763700009100-redemptions-customer-restrict';

/** Listed explicitly so the same list works from TypeScript (tests, CLI) and from the compiled build. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  SeedProducts1763700000001,
  VoucherDataIndexes1763700000010,
  AdminSearchTrigramIndexes1763700000410,
  AuthRefreshRotation1763700003000,
  BenchIndexCleanup1763700005000,
  LicenseKeyListIndex1763700005010,
  DropDeadSuccessTokenColumns1763700006000,
  KeysAtRest1763700007000,
  AuthAttemptsRefreshFamily1763700008000,
  RedemptionsCustomerRestrict1763700009100,
];
