/**
 * Weave's content digests (`weave/shared/digest.py`), reproduced byte for byte. Rows and
 * objects are hashed from Python's `json.dumps(value, sort_keys=True)`, so values must come
 * from the lossless parser: `1` and `1.0` hash differently.
 */
import { createHash } from 'node:crypto';
import { invalidRequest } from './errors.ts';
import { LosslessObject, type LosslessValue } from './json/lossless.ts';
import { pyDumps, pyStrRepr } from './json/pyjson.ts';

/**
 * SHA-256 as URL-safe base64 with `-`→`X`, `_`→`Y` and no padding: 43 characters of
 * [A-Za-z0-9] (Weave recognises content digests by that shape).
 */
export function bytesDigest(bytes: Uint8Array): string {
  return weaveBase64(createHash('sha256').update(bytes).digest('base64url'));
}

/** base64url with `-` and `_` spelled `X` and `Y`, as Weave writes digests. */
function weaveBase64(b64url: string): string {
  return b64url.replace(URL_SAFE_EXTRAS, (c) => (c === '-' ? 'X' : 'Y'));
}
const URL_SAFE_EXTRAS = /[-_]/g;

/** `bytesDigest` of the UTF-8 encoding of `s`. */
export function strDigest(s: string): string {
  return weaveBase64(createHash('sha256').update(s, 'utf8').digest('base64url'));
}

/** Digest of one table row: `str_digest(json.dumps(row, sort_keys=True))`. */
export function rowDigest(row: LosslessValue): string {
  return strDigest(pyDumps(row, { sortKeys: true }));
}

/**
 * Digest of a table: SHA-256 over the row digests concatenated in table order, as lowercase
 * hex (64 characters, not the base64 form). An empty table hashes the empty string.
 */
export function tableDigest(rowDigests: readonly string[]): string {
  const hash = createHash('sha256');
  for (const d of rowDigests) hash.update(d, 'utf8');
  return hash.digest('hex');
}

/** Digest of an uploaded file: `bytesDigest` of its raw bytes. */
export function fileDigest(bytes: Uint8Array): string {
  return bytesDigest(bytes);
}

export interface ObjectDigestResult {
  digest: string;
  /** First class below BaseObject/Object in the hierarchy (the leaf class if there is none). */
  baseObjectClass: string | null;
  /** `_class_name` of the object. */
  leafObjectClass: string | null;
}

/** The base classes Weave treats as object roots (`base_object_class_names`). */
const BASE_OBJECT_CLASS_NAMES: ReadonlySet<string> = new Set(['BaseObject', 'Object']);

/**
 * Digest and classes of an object version, as `compute_object_digest_result` gives them
 * (semantics.md#digest-object): file keys of CustomWeaveType nodes are checked first, then
 * `process_incoming_object_val` passes the value through and reads the classes from a `_bases`
 * list ending in [..., "BaseObject" | "Object", "BaseModel"]; the digest hashes
 * `json.dumps(val, sort_keys=True)`.
 *
 * `builtinObjectClass` (the request's `builtin_object_class`): Weave validates such a value
 * against its Python registry of builtin classes and re-dumps it, which tq cannot reproduce
 * byte for byte; so a request for a builtin class is accepted only when the value already
 * carries that class hierarchy, and is otherwise refused with Weave's "Unknown object class".
 * @throws InvalidRequestError (400) where Weave raises ValueError.
 * @throws TypeError where Weave itself crashes (a hierarchy without `_class_name`: KeyError).
 */
export function objectDigest(val: LosslessValue, builtinObjectClass: string | null = null): ObjectDigestResult {
  validateCustomTypeFileKeys(val);
  const classes = objectClasses(val);
  if (builtinObjectClass !== null) {
    if (!(val instanceof LosslessObject)) throw valueError('object_class cannot be provided for non-dict objects');
    if (classes === null) throw valueError(`Unknown object class: ${builtinObjectClass}`);
    if (classes.leaf !== builtinObjectClass) {
      throw valueError(`object_class must match val's defined object class: ${classes.leaf} != ${builtinObjectClass}`);
    }
  }
  const digest = strDigest(pyDumps(val, { sortKeys: true }));
  return { digest, baseObjectClass: classes?.base ?? null, leafObjectClass: classes?.leaf ?? null };
}

function valueError(reason: string) {
  return invalidRequest('TQ_INVALID_REQUEST', { reason });
}

function objectClasses(val: LosslessValue): { leaf: string; base: string } | null {
  if (!(val instanceof LosslessObject)) return null;
  const bases = val.get('_bases');
  if (!Array.isArray(bases) || bases.length < 2) return null;
  const last = bases[bases.length - 1];
  const secondLast = bases[bases.length - 2];
  // Python compares with ==, so only the exact strings match.
  if (last !== 'BaseModel' || typeof secondLast !== 'string' || !BASE_OBJECT_CLASS_NAMES.has(secondLast)) return null;

  const leaf = val.get('_class_name');
  if (typeof leaf !== 'string') {
    throw new TypeError(
      leaf === undefined
        ? 'object with a BaseModel hierarchy in _bases has no _class_name'
        : '_class_name must be a string',
    );
  }
  if (bases.length === 2) return { leaf, base: leaf };
  const base = bases[bases.length - 3];
  if (typeof base !== 'string') throw new TypeError('_bases entries must be strings');
  return { leaf, base };
}

/**
 * `_validate_custom_type_file_keys`: in every dict whose `_type` is "CustomWeaveType", each
 * key of `files` must be a relative path that does not climb above its start (checked after
 * `os.path.normpath`). Walks the whole value without recursion.
 */
function validateCustomTypeFileKeys(root: LosslessValue): void {
  const stack: LosslessValue[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v instanceof LosslessObject) {
      if (v.get('_type') === 'CustomWeaveType') {
        for (const key of fileKeys(v.get('files'))) {
          if (key.startsWith('/') || normalisedParts(key).includes('..')) {
            throw valueError(`Invalid file path key: ${pyStrRepr(key)}`);
          }
        }
      }
      for (let i = 0; i < v.size; i++) stack.push(v.valueAt(i));
    }
  }
}

/** What Python's `for key in val.get("files", {})` yields for the JSON kinds that iterate to strings. */
function fileKeys(files: LosslessValue | undefined): string[] {
  if (files instanceof LosslessObject) return files.entries.map(([k]) => k);
  if (Array.isArray(files)) return files.filter((f): f is string => typeof f === 'string');
  if (typeof files === 'string') return Array.from(files);
  return [];
}

/** `os.path.normpath(p).split("/")` for a relative POSIX path. */
function normalisedParts(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(part);
  }
  return out;
}


const CONTENT_DIGEST = /^[A-Za-z0-9]{43}$/;

/** True for a string shaped like a `bytesDigest` result (43 ASCII letters/digits). */
export function isContentDigest(s: string): boolean {
  return CONTENT_DIGEST.test(s);
}
