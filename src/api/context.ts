/**
 * The RequestContext of a local, single-user caller (the command line, a program using tq as a
 * library): it may read and write every project, as the owner of the data it loaded.
 */
import type { RequestContext } from './types.ts';

export function fullAccessContext(userId: string): RequestContext {
  return { userId, authorize() {}, canRead: () => true };
}
