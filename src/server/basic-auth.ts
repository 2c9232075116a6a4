/**
 * HTTP Basic authentication and per-project grants (semantics.md#auth-401,
 * semantics.md#auth-basic).
 *
 * Every request but `GET /health` carries `Authorization: Basic base64(user:password)`.
 * Missing, malformed or wrong credentials are a 401; a known user asking about a project it
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

function grantCovers(grant: Grant, projectId: string): boolean {
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
}

interface StoredUser {
  name: string;
  /** SHA-256 of the password: fixed length, so comparing it leaks neither content nor length. */
  passwordHash: Buffer;
  grants: Grant[];
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Compared against when the user is unknown, so that case costs the same as a wrong password. */
const DUMMY_HASH = sha256('tq: no such user');

/** The users a server accepts and what each may see. */
export class Users {
  readonly #byName = new Map<string, StoredUser>();

  /** @throws Error for a duplicate name, a name with a colon, or an invalid grant. */
  constructor(specs: readonly UserSpec[]) {
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

  /**
   * Checks an `Authorization` header and returns the request's context.
   * @throws AuthenticationError (401) for missing, malformed or wrong credentials.
   */
  authenticate(header: string | undefined): RequestContext {
    const { user, password } = parseBasicAuth(header);
    const stored = this.#byName.get(user);
    const matches = timingSafeEqual(sha256(password), stored?.passwordHash ?? DUMMY_HASH);
    // One message for an unknown user and a wrong password: a client cannot probe for names.
    if (!stored || !matches) throw new AuthenticationError(WRONG_CREDENTIALS);
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
