import { SecurityAuditLog } from '../modules/audit/entities/security-audit-log.entity';
import { AdminAttempt } from '../modules/auth/entities/admin-attempt.entity';
import { ApiToken } from '../modules/auth/api-tokens/api-token.entity';
import { AdminRecoveryCode } from '../modules/auth/entities/admin-recovery-code.entity';
import { AdminSession } from '../modules/auth/entities/admin-session.entity';
import { AdminSessionSpentToken } from '../modules/auth/entities/admin-session-spent-token.entity';
import { AdminUser } from '../modules/auth/entities/admin-user.entity';
import { BlockedIp } from '../modules/auth/entities/blocked-ip.entity';
import { UnknownLoginName } from '../modules/auth/entities/unknown-login-name.entity';
import { OidcHandoff } from '../modules/auth/entities/oidc-handoff.entity';
import { LicenseAssignment } from '../modules/license/entities/license-assignment.entity';
import { LicenseKey } from '../modules/license/entities/license-key.entity';
import { LicenseKeyCount } from '../modules/license/entities/license-key-count.entity';
import { LicensePoolStart } from '../modules/license/entities/license-pool-start.entity';
import { EmailLog } from '../modules/mail/entities/email-log.entity';
import { CustomerAccessLink } from '../modules/customer-centre/entities/customer-access-link.entity';
import { PoolAlert } from '../modules/pool/entities/pool-alert.entity';
import { Product } from '../modules/product/entities/product.entity';
import { ProductCounts } from '../modules/product/entities/product-counts.entity';
import { Customer } from '../modules/redemption/entities/customer.entity';
import { Redemption } from '../modules/redemption/entities/redemption.entity';
import { SuccessToken } from '../modules/redemption/entities/success-token.entity';
import { RedemptionDayCount } from '../modules/stats/entities/redemption-day-count.entity';
import { StatsSettings } from '../modules/stats/entities/stats-settings.entity';
import { AvailableCode } from '../modules/voucher/entities/available-code.entity';
import { ReleasedCode } from '../modules/voucher/entities/released-code.entity';
import { UploadBatch } from '../modules/voucher/entities/upload-batch.entity';
import { VoucherCode } from '../modules/voucher/entities/voucher-code.entity';
import { WebhookDelivery } from '../modules/webhook/entities/webhook-delivery.entity';
import { WebhookEndpoint } from '../modules/webhook/entities/webhook-endpoint.entity';
import { MarketplaceConnection } from '../modules/marketplace/entities/marketplace-connection.entity';
import { MarketplaceEvent } from '../modules/marketplace/entities/marketplace-event.entity';
import { MarketplaceProduct } from '../modules/marketplace/entities/marketplace-product.entity';
import { MarketplaceReport } from '../modules/marketplace/entities/marketplace-report.entity';
import { RiskBlocklistEntry } from '../modules/risk/entities/risk-blocklist-entry.entity';
import { RiskSettings } from '../modules/risk/entities/risk-settings.entity';

export const ENTITIES = [
  Product,
  VoucherCode,
  Customer,
  Redemption,
  SuccessToken,
  LicenseKey,
  LicenseAssignment,
  AdminUser,
  AdminSession,
  AdminSessionSpentToken,
  AdminAttempt,
  AdminRecoveryCode,
  ApiToken,
  UnknownLoginName,
  OidcHandoff,
  SecurityAuditLog,
  BlockedIp,
  EmailLog,
  ProductCounts,
  RedemptionDayCount,
  StatsSettings,
  LicenseKeyCount,
  LicensePoolStart,
  WebhookEndpoint,
  WebhookDelivery,
  PoolAlert,
  CustomerAccessLink,
  UploadBatch,
  ReleasedCode,
  AvailableCode,
  MarketplaceConnection,
  MarketplaceProduct,
  MarketplaceEvent,
  MarketplaceReport,
  RiskSettings,
  RiskBlocklistEntry,
];
