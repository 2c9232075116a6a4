/**
 * Weave's content digests (`weave/shared/digest.py`), reproduced byte for byte. Rows and
 * objects are hashed from Python's `json.dumps(value, sort_keys=True)`, so values must come
 * from the lossless parser: `1` and `1.0` hash differently.
 */
import { createHash } from 'node:crypto';
import { LosslessObject, type LosslessValue } from './json/lossless.ts';
import { pyDumps } from './json/pyjson.ts';

/**
 * SHA-256 as URL-safe base64 with `-`→`X`, `_`→`Y` and no padding: 43 characters of
 * [A-Za-z0-9] (Weave recognises content digests by that shape).
 */
export function bytesDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url').replace(/-/g, 'X').replace(/_/g, 'Y');
}

/** `bytesDigest` of the UTF-8 encoding of `s`. */
export function strDigest(s: string): string {
  return bytesDigest(Buffer.from(s, 'utf8'));
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
 * Digest and classes of an object version, as `obj_create` computes them without a requested
 * builtin class: `process_incoming_object_val` passes the value through unchanged and reads
 * the classes from a `_bases` list ending in [..., "BaseObject" | "Object", "BaseModel"].
 * @throws TypeError where Weave itself would fail: such a hierarchy without a string
 *   `_class_name` (Python: KeyError), or with a non-string class name or base.
 */
export function objectDigest(val: LosslessValue): ObjectDigestResult {
  const digest = strDigest(pyDumps(val, { sortKeys: true }));
  const classes = objectClasses(val);
  return { digest, baseObjectClass: classes?.base ?? null, leafObjectClass: classes?.leaf ?? null };
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

const CONTENT_DIGEST = /^[A-Za-z0-9]{43}$/;

/** True for a string shaped like a `bytesDigest` result (43 ASCII letters/digits). */
export function isContentDigest(s: string): boolean {
  return CONTENT_DIGEST.test(s);
}
