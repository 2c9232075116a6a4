/**
 * Every route tq serves, in one table. The HTTP server and the in-process test runner look
 * routes up here; each route's module owns its validation and behaviour.
 */
import type { Route } from './types.ts';

const VERSION = '0.1.0';

export const healthRoute: Route = {
  path: '/health',
  method: 'GET',
  body: 'none',
  run: () => ({ kind: 'json', body: { status: 'ok' } }),
};

export const serverInfoRoute: Route = {
  path: '/server_info',
  method: 'GET',
  body: 'none',
  // The Weave client reads min_required_weave_python_version; tq accepts every client.
  run: () => ({ kind: 'json', body: { min_required_weave_python_version: '0.0.0', tq_version: VERSION } }),
};

const registry: Route[] = [healthRoute, serverInfoRoute];

/** Adds routes to the registry (each query/write module registers its own). */
export function registerRoutes(...routes: Route[]): void {
  for (const r of routes) {
    if (registry.some((x) => x.path === r.path)) throw new Error(`duplicate route ${r.path}`);
    registry.push(r);
  }
}

export function allRoutes(): readonly Route[] {
  return registry;
}

export function findRoute(path: string): Route | undefined {
  return registry.find((r) => r.path === path);
}
