import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createEngine } from '../../engine.ts';
import type { CallTable } from '../../store/call-table.ts';
import { callsStreamQueryRoute } from './route.ts';
import { compareStrings, toFloat64OrNull } from '../../core/ch/values.ts';

const P = 'e/p';
const ctx = { userId: 'u', authorize() {}, canRead: () => true };

interface CallSpec {
  start: number;
  /** Duration in µs, or null for a running call. */
  duration: number | null;
  root: boolean;
  deleted: boolean;
}

const callSpec = fc.record({
  start: fc.integer({ min: 0, max: 40 }).map((s) => s * 1000),
  duration: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 5 }).map((d) => d * 1000 + 17)),
  root: fc.boolean(),
  deleted: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

function engineOf(specs: CallSpec[]): { engine: ReturnType<typeof createEngine>; t: CallTable } {
  const engine = createEngine();
  const t = engine.store.projectForWrite(P).calls;
  specs.forEach((c, i) => {
    const id = `id-${(i * 7919) % 1000}-${i}`;
    t.start({ id, op_name: 'weave:///e/p/op/f:x', display_name: null, trace_id: 't', parent_id: c.root ? null : 'p', thread_id: null, turn_id: null, started_at: c.start, attributes: {}, inputs: {}, user_id: null, run_id: null, run_step: null });
    if (c.duration !== null) t.end({ id, ended_at: c.start + c.duration, exception: null, output: null, summary: {}, run_step_end: null });
    if (c.deleted) t.markDeleted(t.rowOf(id)!, 1);
  });
  return { engine, t };
}

const FIELDS = {
  'summary.weave.latency_ms': (t: CallTable, r: number) => (Number.isNaN(t.endedAt.data[r]) ? null : Math.floor(t.endedAt.data[r] / 1000) - Math.floor(t.startedAt.data[r] / 1000)),
  ended_at: (t: CallTable, r: number) => (Number.isNaN(t.endedAt.data[r]) ? null : t.endedAt.data[r]),
  started_at: (t: CallTable, r: number) => t.startedAt.data[r],
};

/** semantics.md#calls-sort-tiebreak: the field (NULLs last both ways), then id ascending whatever the direction. */
function bruteForce(t: CallTable, field: keyof typeof FIELDS, desc: boolean, roots: boolean, offset: number, limit: number | null): string[] {
  const read = FIELDS[field];
  const rows = Array.from({ length: t.size }, (_, r) => r).filter((r) => !t.isDeleted(r) && (!roots || t.parentId(r) === null));
  rows.sort((a, b) => {
    const x = read(t, a), y = read(t, b);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) return desc ? y - x : x - y;
    return t.id(a) < t.id(b) ? -1 : t.id(a) > t.id(b) ? 1 : 0;
  });
  return rows.slice(offset, limit === null ? undefined : offset + limit).map((r) => t.id(r));
}

test('sorted pages (top-k, pruning, quickselect windows, start-order walks) equal filtering then a full sort', () => {
  fc.assert(
    fc.property(
      fc.array(callSpec, { minLength: 1, maxLength: 120, size: 'max' }),
      fc.constantFrom(...(Object.keys(FIELDS) as Array<keyof typeof FIELDS>)),
      fc.boolean(),
      fc.boolean(),
      fc.oneof(fc.nat(8), fc.nat(130)),
      fc.option(fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 130 })), { nil: null }),
      (specs, field, desc, roots, offset, limit) => {
        const { engine, t } = engineOf(specs);
        const body = {
          project_id: P,
          sort_by: [{ field, direction: desc ? 'desc' : 'asc' }],
          ...(roots ? { filter: { trace_roots_only: true } } : {}),
          ...(offset ? { offset } : {}),
          ...(limit !== null ? { limit } : {}),
          columns: ['id'],
        };
        const res = callsStreamQueryRoute.run(engine, { kind: 'value', value: body }, ctx);
        assert.equal(res.kind, 'stream');
        const got = [...(res as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
        assert.deepEqual(got, bruteForce(t, field, desc, roots, offset, limit));
      },
    ),
    { numRuns: 300 },
  );
});

test('a sort by a new JSON path (presence and number from the bytes, pruned, texts read where they tie) equals a full sort of the readings', () => {
  // Stored spellings of inputs.v: numbers, numeric and other strings, literals, containers, absent.
  const pool = [1, 1.5, -2, 0.304, 1e22, 12345678901234567, '7.5', ' 8 ', 'abc', 'abd', '', 'null', 'nan', 'inf', null, true, { a: 1 }, [2], undefined];
  const text = (v: unknown): string => {
    if (v === undefined || v === null) return '';
    const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    return s === 'null' ? '' : s;
  };
  fc.assert(
    fc.property(
      fc.array(fc.nat(pool.length - 1), { minLength: 1, maxLength: 80 }),
      fc.boolean(),
      fc.nat(20),
      fc.integer({ min: 1, max: 12 }),
      (picks, desc, offset, limit) => {
        const engine = createEngine();
        const t = engine.store.projectForWrite(P).calls;
        picks.forEach((k, i) => {
          const v = pool[k];
          t.start({ id: `c${String(i).padStart(3, '0')}`, op_name: 'weave:///e/p/op/f:x', display_name: null, trace_id: 't', parent_id: null, thread_id: null, turn_id: null, started_at: i, attributes: {}, inputs: v === undefined ? {} : { v }, user_id: null, run_id: null, run_step: null });
        });
        const rows = picks.map((k, i) => ({ id: `c${String(i).padStart(3, '0')}`, v: pool[k] }));
        const present = (v: unknown) => v !== undefined && v !== null;
        const float = (v: unknown) => toFloat64OrNull(text(v));
        rows.sort((a, b) => {
          if (present(a.v) !== present(b.v)) return present(a.v) ? -1 : 1;
          const x = float(a.v), y = float(b.v);
          const xn = x === null || Number.isNaN(x), yn = y === null || Number.isNaN(y);
          if (xn !== yn) return xn ? 1 : -1;
          if (!xn && x !== y) return desc ? y! - x! : x! - y!;
          const c = compareStrings(text(a.v), text(b.v));
          if (c !== 0) return desc ? -c : c;
          return a.id < b.id ? -1 : 1;
        });
        const body = { project_id: P, sort_by: [{ field: 'inputs.v', direction: desc ? 'desc' : 'asc' }], offset, limit, columns: ['id'] };
        const res = callsStreamQueryRoute.run(engine, { kind: 'value', value: body }, ctx);
        const got = [...(res as { lines: Iterable<string> }).lines].map((l) => (JSON.parse(l) as { id: string }).id);
        assert.deepEqual(got, rows.slice(offset, offset + limit).map((r) => r.id));
      },
    ),
    { numRuns: 300 },
  );
});
