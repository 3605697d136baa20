import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { AUDIT_INVENTORY_READ, InventoryReadDeclaration, InventoryReadInterceptor } from './inventory-read.interceptor';

/**
 * This route lists inventory (codes, keys): every answered request writes one `inventory.read` row to
 * security_audit_log (who, route, product, filter and page, row count), never one per row. Exports record their
 * own `export.<kind>` row the same way (docs/security.md). The interceptor that writes it runs on these routes
 * only: the others never enter Nest's interceptor chain for it.
 */
export const AuditInventoryRead = (rows: string) =>
  applyDecorators(
    SetMetadata(AUDIT_INVENTORY_READ, { rows } satisfies InventoryReadDeclaration),
    UseInterceptors(InventoryReadInterceptor),
  );
