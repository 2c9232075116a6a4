/**
 * The users file of `tq serve --users FILE` (semantics.md#auth-basic):
 *
 *   {"users": [
 *     {"name": "alice", "password": "s3cret", "projects": ["acme/*", "x/y"]},
 *     {"name": "api",   "password": "<the Weave SDK's WANDB_API_KEY>", "projects": ["*"]},
 *     {"name": "ci",    "password": "x", "projects": ["ci/*"], "tokens": ["<a Bearer token>"]}
 *   ]}
 *
 * `name`: non-empty, no colon (Basic auth splits at the first one). `password`: non-empty.
 * `projects`: grants, each an exact `entity/project`, `entity/*` (every project of that entity)
 * or `*` (every project); an empty list lets the user authenticate but see nothing. `tokens`
 * (optional): Bearer tokens that sign in as the user, non-empty strings, each used once in the
 * file. The other three keys are required, no other key is allowed, names are unique, and at least one user is
 * listed. Every problem is reported with the file and the JSON path of the offending value.
 */
import { readFileSync } from 'node:fs';
import { parseGrant, type UserSpec } from './basic-auth.ts';
import { OperationalError } from '../core/operational-errors.ts';

export class UsersFileError extends OperationalError<'TQ_USERS_FILE'> {
  constructor(source: string, where: string, problem: string) {
    super('TQ_USERS_FILE', { source, where, problem });
    this.name = 'UsersFileError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const USER_KEYS = ['name', 'password', 'projects'];
const OPTIONAL_KEYS = ['tokens'];

/** Validates a users file's text and returns the user specs it lists. */
export function parseUsersFile(text: string, source: string): UserSpec[] {
  const fail = (where: string, problem: string): never => {
    throw new UsersFileError(source, where, problem);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return fail('', `not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) return fail('', 'expected an object {"users": [...]}');
  for (const key of Object.keys(doc)) if (key !== 'users') fail(key, 'unknown key (expected only "users")');
  const list = doc.users;
  if (!Array.isArray(list)) return fail('users', 'expected an array of users');
  if (list.length === 0) fail('users', 'lists no users');

  const seen = new Set<string>();
  const seenTokens = new Set<string>();
  return list.map((entry: unknown, i): UserSpec => {
    const at = `users[${i}]`;
    if (!isObject(entry)) return fail(at, 'expected an object {"name", "password", "projects"}');
    for (const key of Object.keys(entry)) {
      if (!USER_KEYS.includes(key) && !OPTIONAL_KEYS.includes(key)) fail(`${at}.${key}`, 'unknown key (expected name, password, projects, tokens)');
    }
    for (const key of USER_KEYS) if (!(key in entry)) fail(`${at}.${key}`, 'missing');
    const { name, password, projects } = entry;
    if (typeof name !== 'string' || name === '') return fail(`${at}.name`, 'expected a non-empty string');
    if (name.includes(':')) fail(`${at}.name`, `'${name}' contains a colon, which Basic auth cannot carry`);
    if (seen.has(name)) fail(`${at}.name`, `duplicate user '${name}'`);
    seen.add(name);
    if (typeof password !== 'string' || password === '') return fail(`${at}.password`, 'expected a non-empty string');
    if (!Array.isArray(projects)) return fail(`${at}.projects`, 'expected an array of grants');
    projects.forEach((grant: unknown, j) => {
      if (typeof grant !== 'string' || !parseGrant(grant)) {
        fail(`${at}.projects[${j}]`, `invalid grant ${JSON.stringify(grant)} (expected "entity/project", "entity/*" or "*")`);
      }
    });
    const tokens = entry.tokens;
    if (tokens === undefined) return { name, password, projects: projects as string[] };
    if (!Array.isArray(tokens)) return fail(`${at}.tokens`, 'expected an array of Bearer tokens');
    tokens.forEach((token: unknown, j) => {
      if (typeof token !== 'string' || token === '' || /\s/.test(token)) fail(`${at}.tokens[${j}]`, 'expected a non-empty string without spaces');
      if (seenTokens.has(token as string)) fail(`${at}.tokens[${j}]`, 'this token is listed twice in the file');
      seenTokens.add(token as string);
    });
    return { name, password, projects: projects as string[], tokens: tokens as string[] };
  });
}

/** Reads and validates a users file. File-system errors (ENOENT, ...) propagate as they are. */
export function loadUsersFile(path: string): UserSpec[] {
  return parseUsersFile(readFileSync(path, 'utf8'), path);
}

