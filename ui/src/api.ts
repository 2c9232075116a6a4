/**
 * The viewer's only way to data: tq's public HTTP API on this origin, with the signed-in user's
 * Basic credentials (kept in sessionStorage: gone when the tab closes). A 401 signs the user
 * out (the form shows again); other errors surface as ApiError with tq's `reason`.
 */
const SESSION_KEY = 'tq.viewer.session';

export interface Session {
  user: string;
  /** base64(user:password), the Basic credentials. */
  token: string;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly reason: string, readonly path: string) {
    super(`${status} on ${path}: ${reason}`);
  }
}

/** Called when the server answers 401: the session is dropped and the form shown. */
let onUnauthorized: (reason: string) => void = () => {};
export const setUnauthorizedHandler = (f: (reason: string) => void) => (onUnauthorized = f);

export function currentSession(): Session | undefined {
  const text = sessionStorage.getItem(SESSION_KEY);
  if (!text) return undefined;
  try {
    const s = JSON.parse(text) as Session;
    return typeof s.user === 'string' && typeof s.token === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

/** base64 of UTF-8 (btoa alone takes Latin-1 only). */
function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function saveSession(user: string, password: string): Session {
  const s = { user, token: base64Utf8(`${user}:${password}`) };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  return s;
}

export function clearSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** `trial`: credentials being tried by the sign-in form, whose 401 is the form's own message. */
async function request(method: 'GET' | 'POST', path: string, body?: unknown, trial?: Session): Promise<Response> {
  const session = trial ?? currentSession();
  const headers: Record<string, string> = {};
  if (session) headers.Authorization = `Basic ${session.token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  if (res.ok) return res;
  let reason = res.statusText;
  try {
    const parsed = (await res.json()) as { reason?: unknown; detail?: unknown };
    reason = typeof parsed.reason === 'string' ? parsed.reason : JSON.stringify(parsed.detail ?? parsed);
  } catch {
    // Not JSON: keep the status text.
  }
  if (res.status === 401 && !trial) onUnauthorized(reason);
  throw new ApiError(res.status, reason, path);
}

export async function getJson<T>(path: string, trial?: Session): Promise<T> {
  return (await (await request('GET', path, undefined, trial)).json()) as T;
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return (await (await request('POST', path, body)).json()) as T;
}

/** A JSON Lines answer (the stream_query routes), parsed line by line. */
export async function postLines<T>(path: string, body: unknown): Promise<T[]> {
  const text = await (await request('POST', path, body)).text();
  const out: T[] = [];
  for (const line of text.split('\n')) if (line !== '') out.push(JSON.parse(line) as T);
  return out;
}
