import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { concatMap, Observable } from 'rxjs';
import type { AuthUser } from '../../common/decorators/current-user.decorator';
import { redactFields } from '../../common/log-redaction';
import { requestActor } from '../../common/utils/request-actor';
import { AuditService } from './audit.service';

export const INVENTORY_READ_ACTION = 'inventory.read';
export const AUDIT_INVENTORY_READ = 'audit:inventory-read';

export interface InventoryReadDeclaration {
  /** The response's array of rows (`codes`, `licenseKeys`): its length is the audit row's `rows`. */
  rows: string;
}

/**
 * Who read which inventory (issue 24): after a route marked `@AuditInventoryRead(rows)` (which binds this interceptor
 * to that route alone) answers, one audit row with the route, the product, the query (search redacted, as in the
 * request log) and how many rows went out. Written before the answer leaves, so a read nobody could audit is a read
 * nobody got. A refused call never gets here: the
 * guard audits it as `permission.denied`.
 */
@Injectable()
export class InventoryReadInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declared = this.reflector.get<InventoryReadDeclaration | undefined>(
      AUDIT_INVENTORY_READ,
      context.getHandler(),
    );
    if (!declared) return next.handle();
    const req = context.switchToHttp().getRequest<Request & { user?: AuthUser }>();
    return next.handle().pipe(
      concatMap(async (body: unknown) => {
        const rows = (body as Record<string, unknown> | null)?.[declared.rows];
        const route = `${req.method} ${req.route?.path ?? req.path}`;
        const param = req.params?.id;
        const queried = req.query.productId;
        const productId = typeof param === 'string' ? param : typeof queried === 'string' ? queried : null;
        await this.audit.record({
          ...requestActor(req, req.user),
          action: INVENTORY_READ_ACTION,
          success: true,
          resource: route.slice(0, 100),
          resourceId: productId,
          details: {
            route,
            productId,
            query: redactFields({ ...req.query }) as Record<string, unknown>,
            rows: Array.isArray(rows) ? rows.length : null,
          },
        });
        return body;
      }),
    );
  }
}
