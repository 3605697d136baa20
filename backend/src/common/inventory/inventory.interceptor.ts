import {
  CallHandler,
  ExecutionContext,
  INestApplication,
  NestInterceptor,
  Type,
  UseInterceptors,
} from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import type { AuthUser } from '../decorators/current-user.decorator';
import { carriesInventory, InventoryType, maskInventory, SWAGGER_METADATA } from './inventory';

interface DeclaredResponse {
  type?: unknown;
  isArray?: boolean;
}

/** The 2xx response type a handler declares for OpenAPI (`@ApiOkResponse({ type })` …), if it carries inventory. */
export function inventoryTypeOf(handler: object): InventoryType | null {
  const responses: Record<string, DeclaredResponse> = Reflect.getMetadata(SWAGGER_METADATA.responses, handler) ?? {};
  for (const [status, declared] of Object.entries(responses)) {
    if (!/^2\d\d$/.test(status) || typeof declared.type !== 'function' || !declared.type.prototype) continue;
    const cls = declared.type as Type<unknown>;
    if (carriesInventory(cls)) return declared.isArray ? [cls] : cls;
  }
  return null;
}

/**
 * The one serializer of inventory (docs/product.md §7.3, docs/architecture.md "Inventory fields"): a route's answer
 * masked by the declarations on its declared response type, for the signed-in caller's permissions (a public
 * caller has none). Knows no feature: the declarations say what to mask.
 */
export class InventoryInterceptor implements NestInterceptor {
  constructor(private readonly type: InventoryType) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const user = context.switchToHttp().getRequest<Request & { user?: AuthUser }>().user;
    return next.handle().pipe(map((body: unknown) => maskInventory(body, this.type, user?.permissions)));
  }
}

/** Handlers already given their serializer: the decision is the declarations', the same for every app of a process. */
const bound = new WeakSet<object>();

/**
 * Gives every route whose declared response carries inventory its serializer, and no other route any: decided once
 * at start-up (before `init()` builds the routes) from the declarations alone, so a route cannot forget it and the
 * others (the redemption among them) skip Nest's interceptor chain. Answers how many handlers carry inventory.
 */
export function bindInventoryMasking(app: INestApplication): number {
  let handlers = 0;
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      for (let proto = (metatype as Type<unknown>).prototype; proto && proto !== Object.prototype;) {
        for (const name of Object.getOwnPropertyNames(proto)) {
          const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
          if (name === 'constructor' || typeof descriptor.value !== 'function') continue;
          const type = inventoryTypeOf(descriptor.value);
          if (!type) continue;
          handlers++;
          if (bound.has(descriptor.value)) continue;
          UseInterceptors(new InventoryInterceptor(type))(proto, name, descriptor);
          bound.add(descriptor.value);
        }
        proto = Object.getPrototypeOf(proto);
      }
    }
  }
  return handlers;
}
