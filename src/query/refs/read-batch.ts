/**
 * `POST /refs/read_batch` (RefsReadBatchReq `{refs}` → `{vals}`), as production's RefsRepository:
 * one value per ref, in order. Object and op refs are read (a digest, `latest` or `v<N>`), then
 * their extra path is followed in pairs: `key` / `attr` index a dict, `index` a list (or a
 * string, as Python indexing does; negative counts from the end), `id` reads a row of the table
 * the value refers to, by row digest. Anything unresolvable (unknown or deleted object, missing
 * key, bad index, unknown edge) is `null`, and so is every ref into a project the caller holds
 * no grant on (semantics.md#auth-grants-refs): nothing about that project leaks. Table and call
 * refs as such are rejected (400), as production rejects them; more than 1000 refs is a 400.
 */
import { jsonRoute } from '../../api/json-route.ts';
import type { Engine, RequestContext } from '../../api/types.ts';
import { invalidRequest } from '../../core/errors.ts';
import { isPlainObject } from '../../core/plain-object.ts';
import { parseRef, unquoteRefPart, type ParsedRef } from '../../core/refs.ts';
import { list, model, str, validateBody } from '../../core/schema.ts';
import type { Store } from '../../store/store.ts';
import { selectsVersion } from '../objects/versions.ts';

const MAX_REFS = 1000;
const readBatchModel = model('RefsReadBatchReq', { refs: list(str()) }, { strict: true });

const bad = (reason: string) => invalidRequest('TQ_INVALID_REQUEST', { reason });
const NONE = Symbol('none');
type Found = unknown | typeof NONE;

/** Python's `val[int(arg)]` for a list or a string; NONE where Python raises. */
function indexed(val: unknown, arg: string): Found {
  if (!/^\s*[-+]?\d+\s*$/.test(arg)) return NONE;
  let i = Number(arg.trim());
  const items = typeof val === 'string' ? [...val] : Array.isArray(val) ? val : null;
  if (items === null) return NONE;
  if (i < 0) i += items.length;
  return i >= 0 && i < items.length ? items[i] : NONE;
}

/** One extra-path step (edge, argument) from `val`; NONE when it does not resolve. */
function step(store: Store, ctx: RequestContext, val: unknown, edge: string, arg: string): Found {
  switch (edge) {
    case 'key':
    case 'attr':
      return isPlainObject(val) && Object.prototype.hasOwnProperty.call(val, arg) ? val[arg] : NONE;
    case 'index':
      return indexed(val, arg);
    case 'id': {
      const table = typeof val === 'string' ? parseRef(val) : null;
      if (table?.kind !== 'table' || !ctx.canRead(table.projectId)) return NONE;
      const row = store.project(table.projectId)?.rows.get(arg);
      return row ? (row.parsed ??= JSON.parse(row.text)) : NONE;
    }
    default:
      return NONE;
  }
}

function readOne(store: Store, ctx: RequestContext, ref: ParsedRef): unknown {
  if (!ctx.canRead(ref.projectId)) return null;
  const versions = store.project(ref.projectId)?.objects.get(ref.name) ?? [];
  const version = versions.find((v) => selectsVersion(ref.version ?? '', v));
  if (!version || version.deletedAtUs !== null) return null;
  let val: Found = version.val;
  for (let i = 0; i + 1 < ref.extra.length && val !== NONE; i += 2) {
    val = step(store, ctx, val, ref.extra[i], unquoteRefPart(ref.extra[i + 1]));
  }
  return val === NONE ? null : val;
}

function readRefs(engine: Engine, body: unknown, ctx: RequestContext): { vals: unknown[] } {
  const { refs } = validateBody(readBatchModel, body);
  if (refs.length > MAX_REFS) throw bad('Too many refs');
  const parsed = refs.map((r) => {
    const p = parseRef(r);
    if (p === null || !['object', 'op', 'table', 'call'].includes(p.kind)) throw bad(`Invalid ref: ${r}`);
    return p;
  });
  if (parsed.some((p) => p.kind === 'table')) throw bad('Table refs not supported');
  if (parsed.some((p) => p.kind === 'call')) throw bad('Call refs not supported in batch read, use calls_query_stream');
  return { vals: parsed.map((p) => readOne(engine.store, ctx, p)) };
}

export const refsReadBatchRoute = jsonRoute('/refs/read_batch', readRefs);
