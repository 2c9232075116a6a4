/**
 * Op objects for OTLP spans (semantics.md#otel-op-objects): production stores an exported span's
 * call with `op_name` a ref to an op object named after the span, not the bare span name. Per
 * project of an export, each distinct safe name (`make_safe_name`) refers to the latest live op
 * of that id when the project has one; every other name gets a placeholder op created for it
 * (`build_op_val` over the placeholder source file `obj.py`). The source file itself is written
 * only when none of the export's names had an op yet, as production does.
 *
 * Everything that can refuse the export is checked by `planOpRefs` before anything is written;
 * `applyOpRefs` only writes.
 */
import type { Engine } from '../api/types.ts';
import { bytesDigest } from '../core/digest.ts';
import { tqError } from '../core/errors.ts';
import { LosslessObject } from '../core/json/lossless.ts';
import { createFile } from '../write/files.ts';
import { createObject } from '../write/objects.ts';
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

/** One project's part of an export: which names reuse an op, and which get a placeholder. */
interface ProjectOpPlan {
  projectId: string;
  /** The calls of this project, and the safe name each one's op is under. */
  calls: Array<{ call: ConvertedCall; name: string }>;
  /** Safe name → ref of the project's latest live op of that id. */
  existing: Map<string, string>;
  /** Safe names with no op yet, in first-seen order (a Set: an export may name many spans). */
  missing: Set<string>;
}

export interface OpRefPlan {
  projects: ProjectOpPlan[];
}

/** The latest live op version of an object id, if the project has one (`objs_query` with latest_only, is_op). */
function latestOpDigest(engine: Engine, projectId: string, objectId: string): string | null {
  const versions = engine.store.project(projectId)?.objects.get(objectId) ?? [];
  const latest = versions.find((v) => v.isLatest && v.deletedAtUs === null && v.kind === 'op');
  return latest === undefined ? null : latest.digest;
}

/**
 * Decides every call's op ref without writing. A safe name holding `:` cannot be a ref name
 * (production's `InternalOpRef` validation, a ValueError: 400); tq refuses the whole export
 * before anything is stored.
 */
export function planOpRefs(engine: Engine, calls: readonly ConvertedCall[]): OpRefPlan {
  const byProject = new Map<string, ProjectOpPlan>();
  for (const call of calls) {
    const name = safeObjectName(call.start.op_name);
    if (name.includes(':')) throw tqError('TQ_OTLP_OP_NAME', { name: name.slice(0, 200) });
    let project = byProject.get(call.projectId);
    if (project === undefined) {
      project = { projectId: call.projectId, calls: [], existing: new Map(), missing: new Set() };
      byProject.set(call.projectId, project);
    }
    project.calls.push({ call, name });
    if (project.existing.has(name) || project.missing.has(name)) continue;
    const digest = latestOpDigest(engine, call.projectId, name);
    if (digest === null) project.missing.add(name);
    else project.existing.set(name, opRefUri(call.projectId, name, digest));
  }
  return { projects: [...byProject.values()] };
}

/** Creates the placeholder ops (and source file) a plan needs, and points each call's op_name at its op. */
export function applyOpRefs(engine: Engine, plan: OpRefPlan, userId: string | null): void {
  for (const project of plan.projects) {
    const refs = new Map(project.existing);
    if (project.missing.size > 0) {
      // One creation time for the batch, drawn before the first write (all or nothing).
      const createdAtUs = engine.options.now();
      // `_create_or_get_placeholder_ops_digest`: the file is written only when no name had an op.
      const fileDigest = project.existing.size === 0 ? createFile(engine, project.projectId, PLACEHOLDER_BYTES).digest : bytesDigest(PLACEHOLDER_BYTES);
      for (const name of project.missing) {
        // `obj_create_batch` takes the id as it is: no object-id validation, as production.
        const { digest } = createObject(engine, { projectId: project.projectId, objectId: name, val: placeholderOpVal(fileDigest), userId, createdAtUs }, { validateId: false });
        refs.set(name, opRefUri(project.projectId, name, digest));
      }
    }
    for (const { call, name } of project.calls) call.start.op_name = refs.get(name) as string;
  }
}
