/**
 * Object versions (semantics.md#writes-obj-create, semantics.md#digest-object): `obj_create` and
 * `obj_read` (its reading half is in query/objects/read.ts).
 *
 * A version is named by its digest; creating a value that an object already has returns that
 * version (and makes it the latest again, as Weave's "latest" alias moves) instead of adding
 * one. Otherwise the new version gets `version_index` = number of versions so far and becomes
 * the only latest one. The value is stored with sorted keys, as Weave stores the digested text.
 */
import { parseExact } from '../core/json/exact.ts';
import type { Engine } from '../api/types.ts';
import { objectDigest } from '../core/digest.ts';
import { pyStrRepr } from '../core/json/pyjson.ts';
import { invalidRequest } from '../core/errors.ts';
import { LosslessObject, type LosslessValue } from '../core/json/lossless.ts';
import type { ObjectVersion, ProjectStore } from '../store/project.ts';
import type { StoredObjectVersion } from '../query/objects/read.ts';
import { storedObjectText } from '../core/json/stored-text.ts';
import { checkExpectedDigest } from './tables.ts';

export interface ObjectCreateInput {
  projectId: string;
  objectId: string;
  val: LosslessValue;
  builtinObjectClass?: string | null;
  expectedDigest?: string | null;
  userId: string | null;
  /** Creation time in µs; the engine clock when absent. */
  createdAtUs?: number;
}

const MAX_OBJECT_ID_LENGTH = 128;
/** Python's `[^\w._-]` on str: \w is every Unicode letter and number, plus `_`. */
const INVALID_NAME_CHAR = /[^\p{L}\p{N}_.-]/gu;

/**
 * `object_id_validator`: only letters, digits, `_`, `.` and `-`; not empty; at most 128
 * characters. Weave lists the invalid characters of a Python set (arbitrary order); tq lists
 * them once each, in order of appearance.
 */
function validateObjectId(name: string): void {
  const invalid = [...new Set(name.match(INVALID_NAME_CHAR) ?? [])];
  if (invalid.length > 0) {
    const list = `[${invalid.map(pyStrRepr).join(', ')}]`;
    throw invalidRequest('TQ_INVALID_OBJECT_ID', {
      reason: `Invalid object name: ${name}. Contains invalid characters: ${list}. Please upgrade your \`weave\` package to \`>0.51.0\` to prevent this error.`,
    });
  }
  if (name === '') throw invalidRequest('TQ_INVALID_OBJECT_ID', { reason: 'Object name cannot be empty' });
  if ([...name].length > MAX_OBJECT_ID_LENGTH) {
    throw invalidRequest('TQ_INVALID_OBJECT_ID', { reason: `String too long: ${name}. Max length is ${MAX_OBJECT_ID_LENGTH}` });
  }
}

/** `op` when the value's type is "Op" (`weave_type.type` when both `_type` and `weave_type` are there). */
function objectKind(val: LosslessValue): 'op' | 'object' {
  if (!(val instanceof LosslessObject)) return 'object';
  let type = val.get('_type');
  const weaveType = val.get('weave_type');
  if (type !== undefined && weaveType !== undefined) type = weaveType instanceof LosslessObject ? weaveType.get('type') : undefined;
  return type === 'Op' ? 'op' : 'object';
}

/** Marks `v` as the one latest version of its object id and moves it last (what "latest" reads). */
function makeLatest(versions: ObjectVersion[], v: ObjectVersion): void {
  for (const other of versions) other.isLatest = false;
  v.isLatest = true;
  versions.splice(versions.indexOf(v), 1);
  versions.push(v);
}

/** How production names a base object class in its collision message (`_describe_object_class`). */
const describeClass = (baseObjectClass: string | null) => (baseObjectClass === null ? 'a generic (untyped) object' : `a ${baseObjectClass}`);

/**
 * Production's ObjectNameTypeCollision (semantics.md#writes-obj-type-collision): a new version
 * may not bind an object id to a base object class other than that of its live versions of the
 * same kind. Classes are listed in the order their versions were written.
 */
function checkNameTypeCollision(versions: readonly ObjectVersion[], objectId: string, kind: 'op' | 'object', baseObjectClass: string | null): void {
  const other: Array<string | null> = [];
  for (const v of versions) {
    if (v.deletedAtUs === null && v.kind === kind && v.baseObjectClass !== baseObjectClass && !other.includes(v.baseObjectClass)) other.push(v.baseObjectClass);
  }
  if (other.length === 0) return;
  throw invalidRequest('TQ_OBJECT_NAME_TYPE_COLLISION', {
    object: pyStrRepr(objectId),
    new: describeClass(baseObjectClass),
    existing: [...new Set(other.map(describeClass))].join(' or '),
  });
}

/** What a version derives from its value alone (Route.prepare of `/obj/create`: off the event loop for a large body). */
export interface DerivedObjectVersion {
  digest: string;
  baseObjectClass: string | null;
  leafObjectClass: string | null;
  kind: 'op' | 'object';
  /** The value's stored JSON text. */
  valText: string;
}

/** The digest, classes, kind and stored text of a value: no store, no clock, no client error. */
export function deriveObjectVersion(val: LosslessValue, builtinObjectClass: string | null): DerivedObjectVersion {
  const { digest, baseObjectClass, leafObjectClass } = objectDigest(val, builtinObjectClass);
  return { digest, baseObjectClass, leafObjectClass, kind: objectKind(val), valText: storedObjectText(val) };
}

/** `obj_create`: `{digest, object_id}`. */
export function createObject(
  engine: Engine,
  input: ObjectCreateInput,
  options: { validateId?: boolean } = {},
): { digest: string; object_id: string } {
  return storeObjectVersion(engine, input, deriveObjectVersion(input.val, input.builtinObjectClass ?? null), options);
}

/**
 * Every refusal storeObjectVersion can give (expected digest, object id, a name taken by another
 * class), without storing: a caller that stores several versions (the OTLP op objects) makes
 * all its checks before its first write.
 */
export function checkObjectVersion(
  engine: Engine,
  input: Pick<ObjectCreateInput, 'projectId' | 'objectId' | 'expectedDigest'>,
  derived: DerivedObjectVersion,
  { validateId = true }: { validateId?: boolean } = {},
): void {
  checkExpectedDigest(input.expectedDigest, derived.digest, `obj ${pyStrRepr(input.objectId)}`);
  if (validateId) validateObjectId(input.objectId);
  const existing = engine.store.project(input.projectId)?.objects.get(input.objectId) ?? [];
  // Writing a live version again only makes it the latest: no collision.
  if (existing.some((v) => v.digest === derived.digest && v.deletedAtUs === null)) return;
  checkNameTypeCollision(existing, input.objectId, derived.kind, derived.baseObjectClass);
}

/**
 * The store step of `obj_create` (Route.runPrepared): the checks of the request against the
 * derived version (expected digest, object id), then the version stored, in one step.
 */
export function storeObjectVersion(
  engine: Engine,
  input: Omit<ObjectCreateInput, 'val' | 'builtinObjectClass'>,
  derived: DerivedObjectVersion,
  // Production's `obj_create_batch` (OTLP ops, src/otel/op-objects.ts) takes ids unvalidated.
  { validateId = true }: { validateId?: boolean } = {},
): { digest: string; object_id: string } {
  const { digest, baseObjectClass, leafObjectClass, kind, valText } = derived;
  // Checked before anything is written, so a refused version leaves no trace.
  checkObjectVersion(engine, input, derived, { validateId });

  // Everything derived before the first change (all or nothing): nothing below the version's
  // construction can throw.
  const existing = engine.store.project(input.projectId)?.objects.get(input.objectId) ?? [];
  const same = existing.find((v) => v.digest === digest);
  if (same && same.deletedAtUs === null) {
    makeLatest(existing, same);
    return { digest, object_id: input.objectId };
  }
  const version: StoredObjectVersion = {
    projectId: input.projectId,
    objectId: input.objectId,
    digest,
    versionIndex: existing.length,
    createdAtUs: input.createdAtUs ?? engine.options.now(),
    deletedAtUs: null,
    kind,
    baseObjectClass,
    leafObjectClass,
    // Plain form of the stored text (NaN/Infinity are already `null` there).
    val: parseExact(valText),
    valText,
    isLatest: true,
    userId: input.userId,
  };
  const project: ProjectStore = engine.store.projectForWrite(input.projectId);
  let versions = project.objects.get(input.objectId);
  if (!versions) {
    versions = [];
    project.objects.set(input.objectId, versions);
  }
  if (same) {
    // A deleted version written again comes back in place, with a fresh index (as Weave's upsert).
    Object.assign(same, version);
    makeLatest(versions, same);
  } else {
    versions.push(version);
    makeLatest(versions, version);
  }
  return { digest, object_id: input.objectId };
}

