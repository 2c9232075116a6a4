/**
 * Who may use a `tq serve` instance, gathered from its three sources (semantics.md#auth-basic):
 *   - `--users FILE` (see users-file.ts for the format);
 *   - one user from `--user U --password P`, or else from TQ_USER / TQ_PASSWORD (flags win);
 *     the name defaults to `api`, the user the Weave SDK authenticates as, and the user may
 *     see every project (`*`);
 *   - neither: one `api` user with a random password, generated here and shown once.
 */
import { randomBytes } from 'node:crypto';
import { Users, type UserSpec } from './basic-auth.ts';
import { loadUsersFile } from './users-file.ts';
import { OperationalError } from '../core/operational-errors.ts';

/** The user name the Weave SDK sends (`api:<WANDB_API_KEY>`). */
export const DEFAULT_USER = 'api';

export interface CredentialSources {
  usersFile?: string;
  user?: string;
  password?: string;
  env: { TQ_USER?: string; TQ_PASSWORD?: string };
}

export interface ResolvedUsers {
  users: Users;
  /** Set when no user was configured and a password was generated for `api`. */
  generated?: { user: string; password: string };
}

/** A configuration mistake (a usage error for the CLI). */
export class CredentialsError extends OperationalError<'TQ_CREDENTIALS'> {
  constructor(reason: string) {
    super('TQ_CREDENTIALS', { reason });
  }
}

/** 24 random bytes, base64url: 32 characters, no padding, safe in a shell and in a header. */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

/** The single user named on the command line or in the environment, if any. */
function singleUser(sources: CredentialSources): UserSpec | undefined {
  const fromFlags = sources.user !== undefined || sources.password !== undefined;
  const user = fromFlags ? sources.user : sources.env.TQ_USER || undefined;
  const password = fromFlags ? sources.password : sources.env.TQ_PASSWORD || undefined;
  const [userSource, passwordSource] = fromFlags ? ['--user', '--password'] : ['TQ_USER', 'TQ_PASSWORD'];
  if (password === undefined) {
    if (user !== undefined) throw new CredentialsError(`${userSource} needs ${passwordSource}`);
    return undefined;
  }
  if (password === '') throw new CredentialsError(`${passwordSource} must not be empty`);
  const name = user ?? DEFAULT_USER;
  if (name === '' || name.includes(':')) throw new CredentialsError(`${userSource} must be non-empty and hold no colon, got '${name}'`);
  return { name, password, projects: ['*'] };
}

/**
 * Gathers the users from all sources.
 * @throws CredentialsError for inconsistent flags or a name given twice; UsersFileError for a
 *   bad users file; file-system errors as they are.
 */
export function resolveUsers(sources: CredentialSources): ResolvedUsers {
  const specs: UserSpec[] = sources.usersFile !== undefined ? loadUsersFile(sources.usersFile) : [];
  const single = singleUser(sources);
  if (single) {
    if (specs.some((s) => s.name === single.name)) {
      throw new CredentialsError(`user '${single.name}' is both in ${sources.usersFile} and given on the command line or in TQ_USER`);
    }
    specs.push(single);
  }
  if (specs.length > 0) return { users: new Users(specs) };
  const generated = { user: DEFAULT_USER, password: generatePassword() };
  return { users: new Users([{ name: generated.user, password: generated.password, projects: ['*'] }]), generated };
}
