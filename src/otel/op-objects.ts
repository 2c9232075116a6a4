/**
 * Op objects for OTLP spans (semantics.md#otel-op-objects): production stores an exported span's
 * call with `op_name` a ref to an op object named after the span, not the bare span name. Per
 * project of an export, each distinct safe name (`make_safe_name`) refers to the latest live op
 * of that id when the project has one; every other name gets a placeholder op created for it
 * (`build_op_val` over the placeholder source file `obj.py`). The source file itself is written
 * only when none of the export's names had an op yet, as production does.
 *
 * `opNamesOf` decides from the calls alone (off the event loop for a large export) which names
 * each project needs and whether one cannot be a ref; `storeOpObjects` reads the store for the
 * existing ops and writes the placeholders, everything that can refuse or be drawn first.
 */
import type { Engine } from '../api/types.ts';
import { bytesDigest } from '../core/digest.ts';
import { tqError } from '../core/errors.ts';
import { LosslessObject } from '../core/json/lossless.ts';
import { createFile } from '../write/files.ts';
import { checkObjectVersion, deriveObjectVersion, storeObjectVersion } from '../write/objects.ts';
import type { ConvertedCall } from './convert.ts';

/** The source production stores for an op whose code it never saw (`PLACEHOLDER_OP_SOURCE`). */
export const PLACEHOLDER_OP_SOURCE = 'def func(*args, **kwargs):\n    ... # Code-capture unavailable for this op\n';
/** The file name an op's source is stored under (`OP_SOURCE_FILE_NAME`). */
export const OP_SOURCE_FILE_NAME = 'obj.py';

const PLACEHOLDER_BYTES = new TextEncoder().encode(PLACEHOLDER_OP_SOURCE);

/** Production's `make_safe_name`: spaces and slashes become `_`, `<` and `>` go, then lower case. */
export function safeObjectName(name: string): string {
  return name.replaceAll(' ', '_').replaceAll('/', '_').replaceAll('<', '').replaceAll('>', '').toLowerCase();
}

/** Production's `build_op_val`, keys in its order (the digest sorts them anyway). */
function placeholderOpVal(fileDigest: string): LosslessObject {
  return new LosslessObject([
    ['_type', 'CustomWeaveType'],
    ['weave_type', new LosslessObject([['type', 'Op']])],
    ['files', new LosslessObject([[OP_SOURCE_FILE_NAME, fileDigest]])],
  ]);
}

/** The external form of production's `InternalOpRef(...).uri()`. */
const opRefUri = (projectId: string, name: string, digest: string) => `weave:///${projectId}/op/${name}:${digest}`;

/** The op names of one project's calls: each distinct safe name once, in first-seen order. */
export interface ProjectOpNames {
  projectId: string;
  names: string[];
}

/** What an export's calls need of op objects, decided from the calls alone (no store). */
export interface OpNamePlan {
  projects: ProjectOpNames[];
  /**
   * The first safe name holding `:`, which cannot be a ref name (production's `InternalOpRef`
   * validation, a ValueError: 400), or null. Refused by `storeOpObjects` (after authorization,
   * before anything is read or stored).
   */
  badName: string | null;
}

/**
 * The safe op name of every call (`callNames`, in call order) and each project's names
 * (store-free: it may run off the event loop).
 */
export function opNamesOf(calls: readonly ConvertedCall[]): { plan: OpNamePlan; callNames: string[] } {
  const byProject = new Map<string, { plan: ProjectOpNames; seen: Set<string> }>();
  const callNames: string[] = new Array(calls.length);
  let badName: string | null = null;
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const name = safeObjectName(call.start.op_name);
    callNames[i] = name;
    if (badName === null && name.includes(':')) badName = name;
    let project = byProject.get(call.projectId);
    if (project === undefined) {
      project = { plan: { projectId: call.projectId, names: [] }, seen: new Set() };
      byProject.set(call.projectId, project);
    }
    if (!project.seen.has(name)) {
      project.seen.add(name);
      project.plan.names.push(name);
    }
  }
  return { plan: { projects: [...byProject.values()].map((p) => p.plan), badName }, callNames };
}

/** The latest live op version of an object id, if the project has one (`objs_query` with latest_only, is_op). */
function latestOpDigest(engine: Engine, projectId: string, objectId: string): string | null {
  const versions = engine.store.project(projectId)?.objects.get(objectId) ?? [];
  const latest = versions.find((v) => v.isLatest && v.deletedAtUs === null && v.kind === 'op');
  return latest === undefined ? null : latest.digest;
}

/**
 * The ref of every op name of a plan, per project (project id → safe name → ref): a name with a
 * live op refers to its latest version, every other name gets a placeholder op created for it
 * (and the source file, when none of the project's names had an op). Everything that can refuse
 * or be drawn (the bad name, a name another class holds, each project's creation time) comes
 * before the first write.
 */
export function storeOpObjects(engine: Engine, plan: OpNamePlan, userId: string | null): Map<string, Map<string, string>> {
  if (plan.badName !== null) throw tqError('TQ_OTLP_OP_NAME', { name: plan.badName.slice(0, 200) });
  // The same placeholder for every name: the file digest does not depend on the project.
  const placeholder = deriveObjectVersion(placeholderOpVal(bytesDigest(PLACEHOLDER_BYTES)), null);
  const decided = plan.projects.map(({ projectId, names }) => {
    const refs = new Map<string, string>();
    const missing: string[] = [];
    for (const name of names) {
      const digest = latestOpDigest(engine, projectId, name);
      if (digest !== null) refs.set(name, opRefUri(projectId, name, digest));
      else {
        // `obj_create_batch` takes the id as it is: no object-id validation, as production.
        checkObjectVersion(engine, { projectId, objectId: name }, placeholder, { validateId: false });
        missing.push(name);
      }
    }
    // One creation time per project's batch, all drawn before the first write (all or nothing).
    return { projectId, refs, missing, createdAtUs: missing.length > 0 ? engine.options.now() : 0 };
  });
  const byProject = new Map<string, Map<string, string>>();
  for (const { projectId, refs, missing, createdAtUs } of decided) {
    if (missing.length > 0) {
      // `_create_or_get_placeholder_ops_digest`: the file is written only when no name had an op.
      if (refs.size === 0) createFile(engine, projectId, PLACEHOLDER_BYTES);
      for (const name of missing) {
        storeObjectVersion(engine, { projectId, objectId: name, userId, createdAtUs }, placeholder, { validateId: false });
        refs.set(name, opRefUri(projectId, name, placeholder.digest));
      }
    }
    byProject.set(projectId, refs);
  }
  return byProject;
}
