/**
 * A calls line the fast path declined, through a one-shot gate (one-shot-gate.ts): checked and
 * parsed as the calls kind's store does (the same problems, the same messages), stored by it
 * only when the gate admits the row.
 */
import type { Engine } from '../../api/types.ts';
import { FIXTURE_KIND_REGISTRY, type FixtureLine } from '../fixture-kinds.ts';
import { parseCallRecord, RecordProblem } from './call-record.ts';
import type { OneShotGate } from './one-shot-gate.ts';

export function storeGatedCallLine(engine: Engine, line: FixtureLine, gate: OneShotGate, lineNumber: number): number {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (e) {
    throw new RecordProblem(`invalid JSON: ${(e as Error).message}`);
  }
  const call = parseCallRecord(value, engine.options.fieldPrefix);
  if (gate.admit(call.projectId, call.record, line.buf, line.start, line.end, lineNumber)) FIXTURE_KIND_REGISTRY.calls.store(engine, line);
  return 1;
}
