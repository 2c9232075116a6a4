/**
 * The one-shot gate a calls load goes through, per engine (load/calls/one-shot-gate.ts): set by
 * the CLI's one-shot (cli/one-shot.ts) before it loads, read by the fixture loader. Kept apart
 * from LoadOptions so the published loader's API stays as it is.
 */
import type { Engine } from '../../api/types.ts';
import type { OneShotGate } from '../../load/calls/one-shot-gate.ts';

const gates = new WeakMap<Engine, OneShotGate>();

/** Loads into `engine` store only the rows `gate` admits. */
export function gateCallsLoad(engine: Engine, gate: OneShotGate): void {
  gates.set(engine, gate);
}

export function callsLoadGate(engine: Engine): OneShotGate | undefined {
  return gates.get(engine);
}
