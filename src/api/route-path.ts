/**
 * Route paths with parameters (`/v2/{entity}/{project}/call/start`): the one matcher every
 * front end (HTTP server, CLI, in-process runner) uses to find a route for a request path.
 * A `{name}` segment matches one non-empty path segment, percent-decoded; every other segment
 * matches exactly. Exact paths win over templates.
 */
import type { PathParams, Route } from './types.ts';

// The type lives with the Route contract (types.ts), which route-path.ts serves, not the reverse.
export type { PathParams };

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

const isTemplate = (path: string) => path.includes('{');

/** The parameters of `path` under `template`, or null when it does not match. */
export function matchPath(template: string, path: string): PathParams | null {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const param = PARAM.exec(want[i]);
    if (param === null) {
      if (want[i] !== got[i]) return null;
      continue;
    }
    let value: string;
    try {
      value = decodeURIComponent(got[i]);
    } catch {
      return null;
    }
    if (value === '') return null;
    params[param[1]] = value;
  }
  return params;
}

/** The routes (one per method) serving `path`, with the path's parameters; null when none. */
export function routesForPath(routes: readonly Route[], path: string): { routes: Route[]; params: PathParams } | null {
  const exact = routes.filter((r) => r.path === path);
  if (exact.length > 0) return { routes: exact, params: {} };
  for (const r of routes) {
    if (!isTemplate(r.path)) continue;
    const params = matchPath(r.path, path);
    if (params !== null) return { routes: routes.filter((o) => o.path === r.path), params };
  }
  return null;
}
