/**
 * Before `tq check` or `tq fuzz` sends hundreds of requests: is the server there, does it
 * accept the credentials, may the user use the projects the run will write to (and, for the
 * auth cases, is the other user valid but without that grant)? Each question is one read-only
 * query on a fresh project under the run's prefix; the first wrong answer becomes one line.
 * It also asks which field spelling the server speaks (a filter on `<prefix>user_ids`), so a
 * run with the wrong `--field-prefix` is one line naming the flag, not a page of FAIL lines.
 */
import type { FieldPrefix } from '../api/types.ts';
import { basicAuthorization, type UserCredentials } from './http-target.ts';

export interface PreflightOptions {
  baseUrl: string;
  user: UserCredentials;
  /** The user the auth cases expect to be refused (403) on case projects. */
  other?: UserCredentials;
  /** The entity of the projects the run writes to: `conf` for tq check, `fuzz` for tq fuzz. */
  entity: string;
  /** The spelling the run will use; default svc_. */
  fieldPrefix?: FieldPrefix;
  timeoutMs?: number;
}

const excerpt = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** Resolves with the problem found, in one line, or undefined when the run can start. */
export async function preflight(opts: PreflightOptions): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(opts.baseUrl);
  } catch {
    return `--base-url: not a URL, got '${opts.baseUrl}'`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--base-url: must be an http:// or https:// URL, got '${opts.baseUrl}'`;
  const base = opts.baseUrl.replace(/\/+$/, '');
  const project = `${opts.entity}/tq-preflight-${Date.now().toString(36)}`;

  async function ask(user: UserCredentials, extra: Record<string, unknown> = {}): Promise<{ status: number; text: string } | string> {
    try {
      const res = await fetch(`${base}/calls/stream_query`, {
        method: 'POST',
        headers: { authorization: basicAuthorization(user.name, user.password), 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: project, limit: 1, ...extra }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
      return { status: res.status, text: await res.text() };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      const why = err.name === 'TimeoutError' ? `no answer within ${(opts.timeoutMs ?? 10_000) / 1000} s` : (err.cause?.code ?? err.cause?.message ?? err.message);
      return `cannot reach ${base}: ${why} (is the server running there?)`;
    }
  }

  const main = await ask(opts.user);
  if (typeof main === 'string') return main;
  if (main.status === 401) return `${base} refused user '${opts.user.name}' (401): check --user and --password`;
  if (main.status === 403) return `user '${opts.user.name}' has no grant on ${project} (403): the run writes to projects under '${opts.entity}/'; grant it '${opts.entity}/*'`;
  if (main.status === 404) return `${base} has no POST /calls/stream_query (404): is it a trace server, and is --base-url its root?`;
  if (main.status < 200 || main.status > 299) return `${base} answered a preflight query with ${main.status}: ${excerpt(main.text)}`;

  const prefix = opts.fieldPrefix ?? 'svc_';
  const spelled = await ask(opts.user, { filter: { [`${prefix}user_ids`]: ['tq-preflight'] } });
  if (typeof spelled === 'string') return spelled;
  if (spelled.status < 200 || spelled.status > 299) {
    const other: FieldPrefix = prefix === 'svc_' ? 'wb_' : 'svc_';
    const otherSpelled = await ask(opts.user, { filter: { [`${other}user_ids`]: ['tq-preflight'] } });
    if (typeof otherSpelled !== 'string' && otherSpelled.status >= 200 && otherSpelled.status <= 299) return `the server answers ${other} fields: add --field-prefix ${other}`;
    return `${base} refused a filter on ${prefix}user_ids (${spelled.status}: ${excerpt(spelled.text)}): which field spelling does it speak?`;
  }

  if (opts.other) {
    const other = await ask(opts.other);
    if (typeof other === 'string') return other;
    if (other.status === 401) return `${base} refused --other-user '${opts.other.name}' (401): check --other-user and --other-password`;
    if (other.status >= 200 && other.status <= 299) return `--other-user '${opts.other.name}' may read ${project}: the auth cases need a valid user without a grant on '${opts.entity}/*'`;
    if (other.status !== 403) return `${base} answered --other-user's preflight query with ${other.status}: ${excerpt(other.text)}`;
  }
  return undefined;
}

const authHeaders = (user: UserCredentials) => ({ authorization: basicAuthorization(user.name, user.password) });

/** The target's GET /server_info answer (JSON), or null when it has none or it is not JSON. */
export async function fetchServerInfo(baseUrl: string, user: UserCredentials, timeoutMs = 10_000): Promise<unknown> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/server_info`, { headers: authHeaders(user), signal: AbortSignal.timeout(timeoutMs) });
    if (res.status !== 200) return null;
    return JSON.parse(await res.text()) as unknown;
  } catch {
    return null;
  }
}

/**
 * Whether the target has Weave's mock control plane (`tq serve --test-control`, Weave's
 * trace_server_mock): probed with the harmless GET /test/health, never with a reset.
 */
export async function hasControlPlane(baseUrl: string, user: UserCredentials, timeoutMs = 10_000): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/test/health`, { headers: authHeaders(user), signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** POST /test/reset: wipes the target's data before the run; throws with the answer when refused. */
export async function resetTarget(baseUrl: string, user: UserCredentials, timeoutMs = 30_000): Promise<void> {
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/test/reset`, { method: 'POST', headers: authHeaders(user), signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`POST /test/reset answered ${res.status}: ${excerpt(text)}`);
}
