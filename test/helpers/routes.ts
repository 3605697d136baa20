import { INestApplication, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { routeAccess, RouteAccess } from '../../backend/src/modules/auth/route-access';
import { UNPREFIXED_ROUTES } from '../../backend/src/app.factory';

export interface RegisteredRoute {
  /** `METHOD /api/path/:param`, the key of test/route-permissions.ts. */
  key: string;
  method: string;
  path: string;
  access: RouteAccess;
}

const join = (...parts: string[]) =>
  '/' +
  parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/');

/**
 * Every HTTP route of every controller Nest registered, read from the same metadata the router is
 * built from, so a new controller or handler shows up here without anyone listing it.
 */
export function registeredRoutes(app: INestApplication, globalPrefix = 'api'): RegisteredRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const reflector = app.get(Reflector);
  const routes = new Map<string, RegisteredRoute>();
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as Type<unknown> | null;
    if (!controller || !wrapper.instance) continue;
    const prototype = Object.getPrototypeOf(wrapper.instance);
    const controllerPaths = [Reflect.getMetadata(PATH_METADATA, controller) ?? '/'].flat() as string[];
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler);
      if (methodPath === undefined) continue; // not a route handler
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      for (const base of controllerPaths) {
        for (const sub of [methodPath].flat() as string[]) {
          const unprefixed = UNPREFIXED_ROUTES.includes(join(base, sub).slice(1));
          const path = unprefixed ? join(base, sub) : join(globalPrefix, base, sub);
          const key = `${method} ${path}`;
          routes.set(key, { key, method, path, access: routeAccess(reflector, handler, controller) });
        }
      }
    }
  }
  return [...routes.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** A concrete URL for a route pattern: path parameters become a well-formed uuid, wildcards a segment. */
export function concretePath(path: string): string {
  return path
    .replace(/\{?\*\w+\}?/g, 'x')
    .replace(/:\w+/g, '00000000-0000-4000-8000-000000000000')
    .replace(/[{}]/g, '');
}
