/**
 * Before `tq check` or `tq fuzz` sends hundreds of requests: is the server there, does it
 * accept the credentials, may the user use the projects the run will write to (and, for the
 * auth cases, is the other user valid but without that grant)? Each question is one read-only
 * query on a fresh project under the run's prefix; the first wrong answer becomes one line.
 */
import { basicAuthorization, type UserCredentials } from './http-target.ts';

export interface PreflightOptions {
  baseUrl: string;
  user: UserCredentials;
  /** The user the auth cases expect to be refused (403) on case projects. */
  other?: UserCredentials;
  /** The entity of the projects the run writes to: `conf` for tq check, `fuzz` for tq fuzz. */
  entity: string;
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

  async function ask(user: UserCredentials): Promise<{ status: number; text: string } | string> {
    try {
      const res = await fetch(`${base}/calls/stream_query`, {
        method: 'POST',
        headers: { authorization: basicAuthorization(user.name, user.password), 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: project, limit: 1 }),
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

  if (opts.other) {
    const other = await ask(opts.other);
    if (typeof other === 'string') return other;
    if (other.status === 401) return `${base} refused --other-user '${opts.other.name}' (401): check --other-user and --other-password`;
    if (other.status >= 200 && other.status <= 299) return `--other-user '${opts.other.name}' may read ${project}: the auth cases need a valid user without a grant on '${opts.entity}/*'`;
    if (other.status !== 403) return `${base} answered --other-user's preflight query with ${other.status}: ${excerpt(other.text)}`;
  }
  return undefined;
}
