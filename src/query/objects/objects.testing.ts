/** Object versions for the objects tests: four versions of three objects, one second apart. */
import { callRoute } from '../../api/call-route.testing.ts';
import type { Engine } from '../../api/types.ts';
import { createEngine } from '../../engine.ts';

/** An engine whose clock advances one second per object written. */
export function engineWithObjects(): Engine {
  let t = Date.UTC(2024, 0, 1) * 1000;
  let n = 0;
  const engine = createEngine(undefined, { fieldPrefix: 'svc_', now: () => (t += 1_000_000), newId: () => `id-${++n}` });
  const obj = (object_id: string, val: unknown) => callRoute(engine, '/obj/create', { obj: { project_id: 'e/p', object_id, val } });
  obj('zeta', { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], rows: 'x', v: 1 });
  obj('alpha', { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, load_op: 'NO_LOAD_OP' });
  obj('zeta', { _type: 'Dataset', _class_name: 'Dataset', _bases: ['Object', 'BaseModel'], rows: 'x', v: 2 });
  obj('plain', { a: 1 });
  return engine;
}

type Obj = { object_id: string; version_index: number; is_latest: number; kind: string; base_object_class: string | null; val: unknown; size_bytes: number | null };
export const objs = (engine: Engine, body: Record<string, unknown>) => (callRoute(engine, '/objs/query', { project_id: 'e/p', ...body }) as { body: { objs: Obj[] } }).body.objs;
export const names = (list: Obj[]) => list.map((o) => `${o.object_id}:v${o.version_index}`);

