import { SetMetadata } from '@nestjs/common';

export const AUDIT_INVENTORY_READ = 'audit:inventory-read';

export interface InventoryReadDeclaration {
  /** The response's array of rows (`codes`, `licenseKeys`): its length is the audit row's `rows`. */
  rows: string;
}

/**
 * This route lists inventory (codes, keys): every answered request writes one `inventory.read` row to
 * security_audit_log (who, route, product, filter and page, row count), never one per row. Exports record their
 * own `export.<kind>` row the same way (docs/security.md).
 */
export const AuditInventoryRead = (rows: string) =>
  SetMetadata(AUDIT_INVENTORY_READ, { rows } satisfies InventoryReadDeclaration);
