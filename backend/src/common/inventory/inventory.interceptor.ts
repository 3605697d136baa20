import { CallHandler, ExecutionContext, Injectable, NestInterceptor, Type } from '@nestjs/common';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import type { AuthUser } from '../decorators/current-user.decorator';
import { carriesInventory, InventoryType, maskInventory, SWAGGER_METADATA } from './inventory';

interface DeclaredResponse {
  type?: unknown;
  isArray?: boolean;
}

/** The 2xx response type a handler declares for OpenAPI (`@ApiOkResponse({ type })` …), if it carries inventory. */
function inventoryTypeOf(handler: object): InventoryType | null {
  const responses: Record<string, DeclaredResponse> = Reflect.getMetadata(SWAGGER_METADATA.responses, handler) ?? {};
  for (const [status, declared] of Object.entries(responses)) {
    if (!/^2\d\d$/.test(status) || typeof declared.type !== 'function' || !declared.type.prototype) continue;
    const cls = declared.type as Type<unknown>;
    if (carriesInventory(cls)) return declared.isArray ? [cls] : cls;
  }
  return null;
}

/**
 * The one serializer of inventory (docs/product.md §7.3, docs/architecture.md "Inventory fields"): every route's answer is
 * masked by the declarations on its declared response type, for the signed-in caller's permissions (a public
 * caller has none). Knows no feature: the declarations say what to mask.
 */
@Injectable()
export class InventoryInterceptor implements NestInterceptor {
  private readonly types = new WeakMap<object, InventoryType | null>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const handler = context.getHandler();
    let type = this.types.get(handler);
    if (type === undefined) {
      type = inventoryTypeOf(handler);
      this.types.set(handler, type);
    }
    if (!type) return next.handle();
    const declared = type;
    const user = context.switchToHttp().getRequest<Request & { user?: AuthUser }>().user;
    return next.handle().pipe(map((body: unknown) => maskInventory(body, declared, user?.permissions)));
  }
}
