import { SecurityAuditLog } from '../modules/audit/entities/security-audit-log.entity';
import { AdminAttempt } from '../modules/auth/entities/admin-attempt.entity';
import { AdminSession } from '../modules/auth/entities/admin-session.entity';
import { AdminSessionSpentToken } from '../modules/auth/entities/admin-session-spent-token.entity';
import { AdminUser } from '../modules/auth/entities/admin-user.entity';
import { BlockedIp } from '../modules/auth/entities/blocked-ip.entity';
import { LicenseAssignment } from '../modules/license/entities/license-assignment.entity';
import { LicenseKey } from '../modules/license/entities/license-key.entity';
import { EmailLog } from '../modules/mail/entities/email-log.entity';
import { Product } from '../modules/product/entities/product.entity';
import { Customer } from '../modules/redemption/entities/customer.entity';
import { Redemption } from '../modules/redemption/entities/redemption.entity';
import { SuccessToken } from '../modules/redemption/entities/success-token.entity';
import { VoucherCode } from '../modules/voucher/entities/voucher-code.entity';

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
  SecurityAuditLog,
  BlockedIp,
  EmailLog,
];
