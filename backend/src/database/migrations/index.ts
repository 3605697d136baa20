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
import { VoidsAndRefunds1763810000000 } from './1763810000000-voids-and-refunds';
import { AdminRecoveryCodes1763816000000 } from './1763816000000-admin-recovery-codes';
import { ProductKeySealed1763819000000 } from './1763819000000-product-key-sealed';
import { Counters1763820000000 } from './1763820000000-counters';
import { CodeSearchIndexes1763820000100 } from './1763820000100-code-search-indexes';
import { RedemptionCountsItself1763820000200 } from './1763820000200-redemption-counts-itself';
import { LicenseKeyRoom1763820000300 } from './1763820000300-license-key-room';
import { Webhooks1763821000000 } from './1763821000000-webhooks';
import { PoolAlertsAndHistory1763822000000 } from './1763822000000-pool-alerts-and-history';
import { UploadBatches1763823000000 } from './1763823000000-upload-batches';
import { RedemptionDetailsAndIdempotency1763830000000 } from './1763830000000-redemption-details-and-idempotency';
import { TotpSecretSealed1763832000000 } from './1763832000000-totp-secret-sealed';
import { WebhookCircuitBreaker1763832000100 } from './1763832000100-webhook-circuit-breaker';
import { SsoAndApiTokens1763834000000 } from './1763834000000-sso-and-api-tokens';
import { AutovacuumHotTables1763835000000 } from './1763835000000-autovacuum-hot-tables';
import { UnknownLoginNames1763836000000 } from './1763836000000-unknown-login-names';
import { AuditIpGroup1763836000100 } from './1763836000100-audit-ip-group';
import { CustomerCentre1763837000000 } from './1763837000000-customer-centre';
import { OrderEmailResends1763838000000 } from './1763838000000-order-email-resends';
import { CountersWithoutTriggers1763839000000 } from './1763839000000-counters-without-triggers';
import { WordSearchIndexes1763841000000 } from './1763841000000-word-search-indexes';
import { LicensePoolStarts1763842000000 } from './1763842000000-license-pool-starts';
import { FewerWritePathIndexes1763843000000 } from './1763843000000-fewer-write-path-indexes';
import { RedeemedCodesOffTheCodeRow1763844000000 } from './1763844000000-redeemed-codes-off-the-code-row';
import { AvailableCodesOffTheCodeRow1763845000000 } from './1763845000000-available-codes-off-the-code-row';
import { IndexesFoldedIntoPrimaryKeys1763846000000 } from './1763846000000-indexes-folded-into-primary-keys';
import { CodesByTheirStart1763847000000 } from './1763847000000-codes-by-their-start';
import { CodesSearchedWithinTheirProduct1763848000000 } from './1763848000000-codes-searched-within-their-product';
import { OidcHandoffs1796188506788 } from './1796188506788-oidc-handoffs';
import { MarketplaceConnections1796189638662 } from './1796189638662-marketplace-connections';
import { AuditRowsNameTheirRedemption1796190468411 } from './1796190468411-audit-rows-name-their-redemption';
import { AuditIpGroupWhereCounted1796192688776 } from './1796192688776-audit-ip-group-where-counted';
import { RiskRules1796191618692 } from './1796191618692-risk-rules';
import { HeldRedemptions1796192990816 } from './1796192990816-held-redemptions';
import { ReviewDecisions1796223746948 } from './1796223746948-review-decisions';
import { ReviewRefusalMail1796226723984 } from './1796226723984-review-refusal-mail';
import { RiskCountersInAttemptStore1796239694315 } from './1796239694315-risk-counters-in-attempt-store';
import { FailedUploads1796225739684 } from './1796225739684-failed-uploads';
import { Backorders1796192804930 } from './1796192804930-backorders';
import { MacActivationLink1796223742298 } from './1796223742298-mac-activation-link';
import { MarketplaceAdapters1796223719782 } from './1796223719782-marketplace-adapters';
import { MarketplaceRedeemedFromCounters1796300000000 } from './1796300000000-marketplace-redeemed-from-counters';
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
  VoidsAndRefunds1763810000000,
  AdminRecoveryCodes1763816000000,
  ProductKeySealed1763819000000,
  Counters1763820000000,
  CodeSearchIndexes1763820000100,
  RedemptionCountsItself1763820000200,
  LicenseKeyRoom1763820000300,
  Webhooks1763821000000,
  PoolAlertsAndHistory1763822000000,
  UploadBatches1763823000000,
  RedemptionDetailsAndIdempotency1763830000000,
  TotpSecretSealed1763832000000,
  WebhookCircuitBreaker1763832000100,
  SsoAndApiTokens1763834000000,
  AutovacuumHotTables1763835000000,
  UnknownLoginNames1763836000000,
  AuditIpGroup1763836000100,
  CustomerCentre1763837000000,
  OrderEmailResends1763838000000,
  CountersWithoutTriggers1763839000000,
  WordSearchIndexes1763841000000,
  LicensePoolStarts1763842000000,
  FewerWritePathIndexes1763843000000,
  RedeemedCodesOffTheCodeRow1763844000000,
  AvailableCodesOffTheCodeRow1763845000000,
  IndexesFoldedIntoPrimaryKeys1763846000000,
  CodesByTheirStart1763847000000,
  CodesSearchedWithinTheirProduct1763848000000,
  OidcHandoffs1796188506788,
  MarketplaceConnections1796189638662,
  AuditRowsNameTheirRedemption1796190468411,
  AuditIpGroupWhereCounted1796192688776,
  RiskRules1796191618692,
  HeldRedemptions1796192990816,
  Backorders1796192804930,
  MarketplaceAdapters1796223719782,
  MacActivationLink1796223742298,
  ReviewDecisions1796223746948,
  FailedUploads1796225739684,
  ReviewRefusalMail1796226723984,
  RiskCountersInAttemptStore1796239694315,
  MarketplaceRedeemedFromCounters1796300000000,
];
