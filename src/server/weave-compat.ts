/**
 * What `tq serve` adds so that the Weave SDKs reach it unchanged, kept out of server.ts's flow:
 * the path hints of a 404 (a `//` from a trailing slash in the client's base URL), the
 * `/traces` prefix the SDKs put after WANDB_BASE_URL when WF_TRACE_SERVER_URL is unset, the
 * field-spelling hint of a 422, and the calls_complete mode of projects.
 */
import type { FieldPrefix, Route } from '../api/types.ts';
import { CallsCompleteModeRequiredError, RequestSchemaError } from '../core/errors.ts';
import { grantCovers, parseGrant, type Grant } from './basic-auth.ts';

/** The reason of a 404 for a path holding `//`; the status stays 404. */
export const DOUBLE_SLASH_REASON =
  "Not Found: the path contains '//'. Remove the trailing slash from the client's base URL (WF_TRACE_SERVER_URL or WANDB_BASE_URL)";

/**
 * The path the SDKs use when only WANDB_BASE_URL is set: both put the trace server at
 * `<WANDB_BASE_URL>/traces` (the TypeScript SDK's urls.ts, the Python SDK's weave_trace_server_url()).
 */
const TRACES_PREFIX = '/traces';

/** The path to look up instead of `path` when it has the `/traces` prefix, else undefined. */
export function withoutTracesPrefix(path: string): string | undefined {
  return path.startsWith(TRACES_PREFIX + '/') ? path.slice(TRACES_PREFIX.length) : undefined;
}

const otherPrefix = (p: FieldPrefix): FieldPrefix => (p === 'svc_' ? 'wb_' : 'svc_');

/**
 * The reason added to a 422 when the request names fields in the other spelling (`wb_user_ids`
 * sent to a server speaking `svc_`): which spelling this server speaks and the flag that changes it.
 */
function prefixHint(error: RequestSchemaError, serverPrefix: FieldPrefix): string | undefined {
  const other = otherPrefix(serverPrefix);
  const names = new Set<string>();
  for (const issue of error.issues) {
    for (const part of issue.loc) if (typeof part === 'string' && part.startsWith(other)) names.add(part);
  }
  if (names.size === 0) return undefined;
  const listed = [...names].slice(0, 5).join(', ');
  return `This server speaks ${serverPrefix} field names, and the request uses ${other} ones (${listed}): restart tq serve with --field-prefix ${other} (the Weave SDKs send wb_)`;
}

/** The body of a 422, with the spelling hint when it applies. */
export function schemaErrorBody(error: RequestSchemaError, serverPrefix: FieldPrefix): Record<string, unknown> {
  const hint = prefixHint(error, serverPrefix);
  return hint === undefined ? error.body() : { ...error.body(), reason: hint };
}

/** `--calls-mode`: legacy writes everywhere, or calls_complete for every project. */
export type CallsMode = 'legacy' | 'complete';

/**
 * Which projects are in calls_complete mode: all of them (`--calls-mode complete`) or those
 * covered by a `--calls-complete` pattern (`entity/project`, `entity/*`, `*`).
 * Returns the check the legacy call writes run, or undefined when no project is.
 */
export function callsCompleteCheck(mode: CallsMode, patterns: readonly string[]): ((projectId: string) => void) | undefined {
  const grants: Grant[] = patterns.map((text) => {
    const grant = parseGrant(text);
    if (!grant) throw new Error(`invalid project pattern '${text}' (expected "entity/project", "entity/*" or "*")`);
    return grant;
  });
  if (mode === 'complete') grants.push({ kind: 'all' });
  if (grants.length === 0) return undefined;
  return (projectId) => {
    if (grants.some((g) => grantCovers(g, projectId))) throw new CallsCompleteModeRequiredError(projectId);
  };
}

/** The query-string parameters a route declares, from a request target. */
export function queryParams(route: Route, url: string | undefined): Record<string, string> {
  if (!route.query || url === undefined) return {};
  const q = url.indexOf('?');
  if (q < 0) return {};
  const search = new URLSearchParams(url.slice(q + 1));
  const params: Record<string, string> = {};
  for (const name of route.query) {
    const value = search.get(name);
    if (value !== null) params[name] = value;
  }
  return params;
}
