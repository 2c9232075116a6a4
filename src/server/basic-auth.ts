/**
 * HTTP Basic authentication and per-project grants (semantics.md#auth-401,
 * semantics.md#auth-basic).
 *
 * Every request but `GET /health` carries `Authorization: Basic base64(user:password)` or
 * `Authorization: Bearer <token>` (the Weave SDKs send an agent token's key that way). A Bearer
 * token names the user listing it in its `tokens`, or the user `api` when it is that user's
 * password (the SDK's key, which it otherwise sends as `api:<key>`). Missing, malformed or wrong
 * credentials are a 401; a known user asking about a project it
 * has no grant on is a 403, raised by `RequestContext.authorize` when the route names its
 * project. A grant is an exact `entity/project`, `entity/*` (every project of the entity), or
 * `*` (every project).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestContext } from '../api/types.ts';
import { AuthenticationError, PermissionDeniedError } from '../core/errors.ts';

/** The value of the `WWW-Authenticate` header on every 401 (semantics.md#auth-401). */
export const WWW_AUTHENTICATE = 'Basic realm="tq"';

export const MISSING_CREDENTIALS = 'Missing Authorization header: expected Basic credentials';
export const MALFORMED_CREDENTIALS = "Malformed Authorization header: expected 'Basic base64(user:password)'";
export const WRONG_CREDENTIALS = 'Invalid username or password';
const MALFORMED_BEARER = "Malformed Authorization header: expected 'Bearer <token>'";
const WRONG_TOKEN = 'Invalid API key';

/** The user a Bearer token equal to its password signs in as: the name the Weave SDK sends. */
const SDK_USER = 'api';

export interface Credentials {
  user: string;
  password: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads `Authorization: Basic <base64(user:password)>`. The scheme is case-insensitive
 * (RFC 7617); the password is everything after the first colon, so it may hold colons.
 * @throws AuthenticationError (401) when the header is missing or malformed.
 */
export function parseBasicAuth(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === '') throw new AuthenticationError(MISSING_CREDENTIALS);
  const m = /^\s*basic\s+(\S+)\s*$/i.exec(header);
  if (!m || !BASE64.test(m[1]) || m[1].replace(/=+$/, '').length % 4 === 1) {
    throw new AuthenticationError(MALFORMED_CREDENTIALS);
  }
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new AuthenticationError(MALFORMED_CREDENTIALS);
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A parsed grant: everything, one entity's projects, or one project. */
export type Grant = { kind: 'all' } | { kind: 'entity'; entity: string } | { kind: 'project'; projectId: string };

const NAME_PART = /^[^/*\s]+$/;

/** Parses a grant string; undefined when it is none of `*`, `entity/*`, `entity/project`. */
export function parseGrant(text: string): Grant | undefined {
  if (text === '*') return { kind: 'all' };
  const parts = text.split('/');
  if (parts.length !== 2 || !NAME_PART.test(parts[0])) return undefined;
  if (parts[1] === '*') return { kind: 'entity', entity: parts[0] };
  if (!NAME_PART.test(parts[1])) return undefined;
  return { kind: 'project', projectId: text };
}

export function grantCovers(grant: Grant, projectId: string): boolean {
  switch (grant.kind) {
    case 'all':
      return true;
    case 'entity':
      // `acme/*` covers `acme/x`, never `acme/x/y`: a pattern does not match across a `/`.
      return projectId.length > grant.entity.length + 1 && projectId.startsWith(grant.entity + '/') && !projectId.includes('/', grant.entity.length + 1);
    case 'project':
      return projectId === grant.projectId;
  }
}

/** One user as a users file (or the command line) describes it. */
export interface UserSpec {
  name: string;
  password: string;
  /** Grant strings: `*`, `entity/*` or `entity/project`. */
  projects: string[];
  /** Bearer tokens that sign in as this user (none when absent). */
  tokens?: string[];
}

interface StoredUser {
  name: string;
  /** SHA-256 of the password: fixed length, so comparing it leaks neither content nor length. */
  passwordHash: Buffer;
  grants: Grant[];
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

const BEARER = /^\s*bearer(?:\s+(\S*))?\s*$/i;

/** Compared against when the user is unknown, so that case costs the same as a wrong password. */
const DUMMY_HASH = sha256('tq: no such user');

/** The users a server accepts and what each may see. */
export class Users {
  readonly #byName = new Map<string, StoredUser>();
  /** SHA-256 of each Bearer token, with the user it signs in as; all compared on every try. */
  readonly #tokens: Array<{ hash: Buffer; user: StoredUser }> = [];

  /** @throws Error for a duplicate name, a name with a colon, an invalid grant, or a token given twice. */
  constructor(specs: readonly UserSpec[]) {
    const seenTokens = new Set<string>();
    const addToken = (token: string, user: StoredUser) => {
      if (token === '') throw new Error(`empty token for user '${user.name}'`);
      // One token, one user: otherwise which grants apply would depend on the list's order.
      if (seenTokens.has(token)) throw new Error(`a token of user '${user.name}' is already another user's token or the '${SDK_USER}' password`);
      seenTokens.add(token);
      this.#tokens.push({ hash: sha256(token), user });
    };
    for (const spec of specs) {
      if (spec.name === '' || spec.name.includes(':')) throw new Error(`invalid user name '${spec.name}'`);
      if (this.#byName.has(spec.name)) throw new Error(`duplicate user '${spec.name}'`);
      const grants = spec.projects.map((text) => {
        const grant = parseGrant(text);
        if (!grant) throw new Error(`invalid grant '${text}' for user '${spec.name}'`);
        return grant;
      });
      this.#byName.set(spec.name, { name: spec.name, passwordHash: sha256(spec.password), grants });
    }
    const sdkUser = this.#byName.get(SDK_USER);
    const sdkPassword = specs.find((s) => s.name === SDK_USER)?.password;
    if (sdkUser && sdkPassword !== undefined) addToken(sdkPassword, sdkUser);
    for (const spec of specs) for (const token of spec.tokens ?? []) addToken(token, this.#byName.get(spec.name)!);
  }

  /** The user a Bearer token signs in as: every stored token is compared, so the time is the same for all. */
  #userOfToken(token: string): StoredUser | undefined {
    const hash = sha256(token);
    let found: StoredUser | undefined;
    for (const entry of this.#tokens) if (timingSafeEqual(hash, entry.hash) && found === undefined) found = entry.user;
    return found;
  }

  get size(): number {
    return this.#byName.size;
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }

  /** True when `user` has a grant covering `projectId`. */
  mayAccess(user: string, projectId: string): boolean {
    const stored = this.#byName.get(user);
    return stored !== undefined && stored.grants.some((g) => grantCovers(g, projectId));
  }

  #basicUser(header: string | undefined): StoredUser {
    const { user, password } = parseBasicAuth(header);
    const stored = this.#byName.get(user);
    const matches = timingSafeEqual(sha256(password), stored?.passwordHash ?? DUMMY_HASH);
    // One message for an unknown user and a wrong password: a client cannot probe for names.
    if (!stored || !matches) throw new AuthenticationError(WRONG_CREDENTIALS);
    return stored;
  }

  #bearerUser(header: string): StoredUser {
    const token = BEARER.exec(header)![1];
    if (!token) throw new AuthenticationError(MALFORMED_BEARER);
    const stored = this.#userOfToken(token);
    if (!stored) throw new AuthenticationError(WRONG_TOKEN);
    return stored;
  }

  /**
   * Checks an `Authorization` header and returns the request's context.
   * @throws AuthenticationError (401) for missing, malformed or wrong credentials.
   */
  authenticate(header: string | undefined): RequestContext {
    const stored = header !== undefined && BEARER.test(header) ? this.#bearerUser(header) : this.#basicUser(header);
    return {
      userId: stored.name,
      authorize: (projectId: string) => {
        if (!this.mayAccess(stored.name, projectId)) {
          throw new PermissionDeniedError('TQ_PROJECT_FORBIDDEN', { user: stored.name, project: projectId });
        }
      },
      canRead: (projectId: string) => this.mayAccess(stored.name, projectId),
    };
  }
}
