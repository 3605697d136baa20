import { Type } from '@nestjs/common';
import { Permission } from '../permissions';
import { maskLicenseKey } from '../utils/license-key-mask';

/*
 * Inventory masking by declaration (docs/architecture.md "Inventory fields"). A response field that carries
 * inventory (a licence key, a product key, an unredeemed code) is declared once, on its response class:
 *
 *   @Inventory(Permission.LicensesView) @ApiProperty() licenseKey: string;
 *
 * and `maskInventory` gives it to a reader without that permission masked (the docs/product.md §10.6 licence key mask).
 * InventoryInterceptor applies it to every route whose declared response type carries inventory; the socket events, the
 * webhook payloads and the export rows go through the same function with their own declared types. Nested
 * response classes are found through their `@ApiProperty({ type })`, the same declaration OpenAPI reads.
 */

const INVENTORY_FIELDS = Symbol('inventory:fields');

/** Where `@ApiProperty` keeps a class's properties (@nestjs/swagger's DECORATORS, which its package does not export). */
export const SWAGGER_METADATA = {
  properties: 'swagger/apiModelPropertiesArray',
  property: 'swagger/apiModelProperties',
  responses: 'swagger/apiResponse',
} as const;

/** The permission a reader needs to see this field in clear; anyone else gets it masked. */
export function Inventory(permission: Permission): PropertyDecorator {
  return (target, key) => {
    const own: Map<string, Permission> = Reflect.getOwnMetadata(INVENTORY_FIELDS, target) ?? new Map();
    own.set(String(key), permission);
    Reflect.defineMetadata(INVENTORY_FIELDS, own, target);
  };
}

/** A response type as declared: a class, or `[Class]` for an array of it. */
export type InventoryType = Type<unknown> | [Type<unknown>];

/** How a value of a class is masked: its own inventory fields, and the nested fields that hold some. */
interface Plan {
  masked: Array<[string, Permission]>;
  nested: Array<[string, Plan]>;
}

const EMPTY: Plan = { masked: [], nested: [] };
const plans = new WeakMap<object, Plan>();
const SCALARS = new Set<unknown>([String, Number, Boolean, Date, Object, Array, Buffer]);

/** The class a swagger property type names, or undefined for scalars, enums and inline schemas. */
function classOf(type: unknown): Type<unknown> | undefined {
  if (Array.isArray(type)) return classOf(type[0]);
  if (typeof type !== 'function' || SCALARS.has(type)) return undefined;
  // `type: () => Class` (lazy, for cycles): an arrow function has no prototype.
  if (!type.prototype) return classOf((type as () => unknown)());
  return type as Type<unknown>;
}

function planOf(type: Type<unknown>, building = new Set<object>()): Plan {
  const known = plans.get(type);
  if (known) return known;
  if (building.has(type)) return EMPTY; // a cycle: the outer walk handles this class
  building.add(type);
  const masked = new Map<string, Permission>();
  const nested: Array<[string, Plan]> = [];
  const seen = new Set<string>();
  // Own and inherited declarations, the subclass's winning.
  for (let proto = type.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const fields: Map<string, Permission> | undefined = Reflect.getOwnMetadata(INVENTORY_FIELDS, proto);
    for (const [field, permission] of fields ?? []) if (!masked.has(field)) masked.set(field, permission);
    const properties: string[] = Reflect.getOwnMetadata(SWAGGER_METADATA.properties, proto) ?? [];
    for (const name of properties.map((p) => p.slice(1))) {
      if (seen.has(name)) continue;
      seen.add(name);
      const meta = Reflect.getMetadata(SWAGGER_METADATA.property, proto, name) as { type?: unknown } | undefined;
      const inner = classOf(meta?.type);
      if (!inner) continue;
      const plan = planOf(inner, building);
      if (plan.masked.length || plan.nested.length) nested.push([name, plan]);
    }
  }
  building.delete(type);
  const plan = masked.size || nested.length ? { masked: [...masked], nested } : EMPTY;
  plans.set(type, plan);
  return plan;
}

/** Whether a value of this type can carry inventory at all (a fast no-op otherwise). */
export function carriesInventory(type: InventoryType): boolean {
  const cls = Array.isArray(type) ? type[0] : type;
  return planOf(cls) !== EMPTY;
}

function apply(value: unknown, plan: Plan, permissions: ReadonlySet<string>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => apply(item, plan, permissions));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  let copy: Record<string, unknown> | undefined;
  const source = value as Record<string, unknown>;
  for (const [field, permission] of plan.masked) {
    const cell = source[field];
    if (permissions.has(permission) || typeof cell !== 'string') continue;
    copy ??= { ...source };
    copy[field] = maskLicenseKey(cell);
  }
  for (const [field, inner] of plan.nested) {
    const cell = source[field];
    if (cell === null || typeof cell !== 'object') continue;
    const masked = apply(cell, inner, permissions);
    if (masked === cell) continue;
    copy ??= { ...source };
    copy[field] = masked;
  }
  return copy ?? value;
}

/**
 * The value as a reader with `permissions` may see it: every declared inventory field of `type` (and of the classes
 * it nests) masked unless the reader holds the field's permission. Never changes `value`; answers it untouched when
 * nothing is masked. Pass `NO_PERMISSIONS` for a reader who is nobody in particular (a broadcast, a webhook).
 */
export function maskInventory<T>(value: T, type: InventoryType, permissions: readonly string[] | undefined): T {
  const plan = planOf(Array.isArray(type) ? type[0] : type);
  if (plan === EMPTY) return value;
  return apply(value, plan, new Set(permissions ?? [])) as T;
}

/** The reader of a broadcast (the admins' room holds every role) or of a webhook: masked for all. */
export const NO_PERMISSIONS: readonly string[] = [];
