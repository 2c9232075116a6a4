/** Everything a load puts in a store's call tables, as plain data (to compare two loads). */
import type { Engine } from '../../api/types.ts';

export function callsFingerprint(engine: Engine): unknown[] {
  const out: unknown[] = [];
  for (const [projectId, project] of engine.store.projects) {
    const t = project.calls;
    for (let row = 0; row < t.size; row++) {
      out.push([
        projectId, row, t.id(row), t.traceId(row), t.parentId(row), t.threadId(row), t.turnId(row), t.opName(row),
        t.startedAt.data[row], t.endedAt.data[row], t.deletedAt.data[row], t.statusErrorCount.data[row],
        t.runStep.get(row), t.runStepEnd.get(row), t.displayNames.get(row), t.exceptions.get(row), t.runIds.get(row), t.userId(row),
        t.inputRefs.get(row), t.outputRefs.get(row), t.bodyText(row), t.rowOf(t.id(row)),
      ]);
    }
  }
  return out;
}
