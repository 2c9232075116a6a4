/**
 * Resolving object and op refs to their stored values (what Weave's refs_read_batch does for
 * call expansion and for querying through expanded columns).
 *
 * A grant covers everything read on the caller's behalf (semantics.md#auth-grants-refs): a ref into
 * a project the caller cannot read resolves exactly as a ref to nothing, at every step (the object,
 * a ref inside it, a table row it points to), so nothing about that project leaks.
 */
import { LosslessNumber } from '../core/json/lossless.ts';
import { parseObjectRef, parseRef, unquoteRefPart } from '../core/refs.ts';
import { parsedRow } from './table/run.ts';
import type { Store } from '../store/store.ts';

/** Whether the caller may read a project (RequestContext.canRead). */
export type CanRead = (projectId: string) => boolean;

export type Resolved = { found: true; value: unknown } | { found: false };

const NOT_FOUND: Resolved = { found: false };

/** Follows one `extra` step (`attr`/`key`/`index`/`id`) from `value`. */
function step(store: Store, canRead: CanRead, value: unknown, edge: string, arg: string, depth: number): Resolved {
  if (typeof value === 'string') {
    // A ref inside the object: follow it first (tables: `index`/`id` pick a row).
    const inner = parseRef(value);
    if (inner?.kind === 'table' && (edge === 'index' || edge === 'id')) {
      if (!canRead(inner.projectId)) return NOT_FOUND;
      const project = store.project(inner.projectId);
      const digests = project?.tables.get(inner.name);
      if (!project || !digests) return NOT_FOUND;
      const digest = edge === 'index' ? digests[Number(arg)] : digests.find((d) => d === arg);
      const row = digest === undefined ? undefined : project.rows.get(digest);
      return row ? { found: true, value: parsedRow(row) } : NOT_FOUND;
    }
    const resolved = resolveObjectRef(store, value, canRead, depth + 1);
    if (!resolved.found) return NOT_FOUND;
    value = resolved.value;
  }
  if (value === null || typeof value !== 'object' || value instanceof LosslessNumber) return NOT_FOUND;
  if (Array.isArray(value)) {
    const i = Number(arg);
    return edge === 'index' && Number.isInteger(i) && i >= 0 && i < value.length ? { found: true, value: value[i] } : NOT_FOUND;
  }
  const obj = value as Record<string, unknown>;
  return Object.prototype.hasOwnProperty.call(obj, arg) ? { found: true, value: obj[arg] } : NOT_FOUND;
}

/** Resolves an object/op ref URI, following its extra path. Only object and op refs resolve. */
export function resolveObjectRef(store: Store, uri: string, canRead: CanRead, depth = 0): Resolved {
  if (depth > 16) return NOT_FOUND;
  const ref = parseObjectRef(uri);
  if (!ref || ref.version === null || !canRead(ref.projectId)) return NOT_FOUND;
  const version = store.project(ref.projectId)?.objectVersion(ref.name, ref.version);
  if (!version) return NOT_FOUND;
  let current: Resolved = { found: true, value: version.val };
  for (let i = 0; i + 1 < ref.extra.length && current.found; i += 2) {
    current = step(store, canRead, current.value, ref.extra[i], unquoteRefPart(ref.extra[i + 1]), depth);
  }
  return current;
}
