import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CallTable, DuplicateCallError, type CallStartPart, type CallEndPart, type CallRecordPart } from './call-table.ts';
import { CollidingIdHash } from './id-index.testing.ts';
import { MultiIndex, SparseColumn } from './columns.ts';

const start = (id: string, extra: Partial<CallStartPart> = {}): CallStartPart => ({
  id,
  op_name: 'weave:///e/p/op/f:abc',
  display_name: null,
  trace_id: 't1',
  parent_id: null,
  thread_id: null,
  turn_id: null,
  started_at: 1_000_000,
  attributes: { a: 1 },
  inputs: { x: 'weave:///e/p/object/o:d1' },
  user_id: 'u',
  run_id: null,
  run_step: null,
  ...extra,
});

const end = (id: string, extra: Partial<CallEndPart> = {}): CallEndPart => ({
  id,
  ended_at: 2_000_000,
  exception: null,
  output: { y: 2 },
  summary: { status_counts: { error: 0 } },
  run_step_end: null,
  ...extra,
});

test('start then end merges into one row with the end fields and bodies', () => {
  const t = new CallTable();
  const row = t.start(start('c1'));
  t.end(end('c1', { exception: 'boom', summary: { status_counts: { error: 2 } } }));
  assert.equal(t.size, 1);
  assert.equal(t.endedAt.data[row], 2_000_000);
  assert.equal(t.exceptions.get(row), 'boom');
  assert.equal(t.statusErrorCount.data[row], 2);
  assert.deepEqual(t.body(row), { attributes: { a: 1 }, inputs: { x: 'weave:///e/p/object/o:d1' }, output: { y: 2 }, summary: { status_counts: { error: 2 } } });
  assert.deepEqual(t.inputRefs.get(row), ['weave:///e/p/object/o:d1']);
});

test('startEnded stores a whole call as start() then end() would, in one body write', () => {
  /** Everything a row holds that a query reads: columns, refs and the body text. */
  const rowOf = (t: CallTable, row: number) => [
    t.id(row), t.traceId(row), t.opName(row), t.startedAt.data[row], t.endedAt.data[row], t.exceptions.get(row), t.runStepEnd.get(row),
    t.statusErrorCount.data[row], t.inputRefs.get(row), t.outputRefs.get(row), t.bodyPartTexts(row),
  ];
  const e = end('c1', { exception: 'boom', output: 'weave:///e/p/object/out:d2', summary: { status_counts: { error: 3 } }, run_step_end: 4 });
  const merged = new CallTable();
  merged.startEnded(start('c1'), e);
  const stepwise = new CallTable();
  stepwise.start(start('c1'));
  stepwise.end(e);
  assert.deepEqual(rowOf(merged, 0), rowOf(stepwise, 0));
  assert.equal(merged.size, 1);
  // An id already stored, or with an end waiting: start() then end(), the same row as stepwise.
  merged.startEnded(start('c1', { op_name: 'again' }), end('c1', { exception: 'second' }));
  stepwise.start(start('c1', { op_name: 'again' }));
  stepwise.end(end('c1', { exception: 'second' }));
  merged.end(end('c2'));
  merged.startEnded(start('c2'), end('c2', { exception: 'third' }));
  stepwise.end(end('c2'));
  stepwise.start(start('c2'));
  stepwise.end(end('c2', { exception: 'third' }));
  assert.deepEqual([rowOf(merged, 0), rowOf(merged, 1)], [rowOf(stepwise, 0), rowOf(stepwise, 1)]);
  assert.equal(merged.exceptions.get(1), 'third');
});

test('an end that arrives before its start waits for it (semantics.md#writes)', () => {
  const t = new CallTable();
  t.end(end('c1'));
  assert.equal(t.size, 0, 'a lone end creates no visible call');
  assert.equal(t.pendingEndCount, 1);
  const row = t.start(start('c1'));
  assert.equal(t.pendingEndCount, 0);
  assert.equal(t.endedAt.data[row], 2_000_000);
  assert.deepEqual(t.body(row).output, { y: 2 });
});

test('a repeated start overwrites the start fields and moves the row between indexes', () => {
  const t = new CallTable();
  const row = t.start(start('c1', { parent_id: 'p1', trace_id: 't1' }));
  t.end(end('c1'));
  const v = t.version;
  assert.equal(t.start(start('c1', { parent_id: 'p2', trace_id: 't2', display_name: 'renamed' })), row);
  assert.equal(t.size, 1);
  assert.equal(t.byParent.get('p1'), undefined);
  assert.deepEqual(t.byParent.get('p2'), [row]);
  assert.deepEqual(t.byTrace.get('t2'), [row]);
  assert.equal(t.byTrace.get('t1'), undefined);
  assert.equal(t.displayNames.get(row), 'renamed');
  assert.deepEqual(t.body(row).output, { y: 2 }, 'the end part survives a repeated start');
  assert.ok(t.version > v, 'in-place change bumps the version');
});

test('turns are indexed per thread only when id == turn_id', () => {
  const t = new CallTable();
  const turn = t.start(start('turn1', { thread_id: 'th', turn_id: 'turn1' }));
  t.start(start('nested', { thread_id: 'th', turn_id: 'turn1', parent_id: 'turn1' }));
  t.start(start('noThread', { thread_id: '', turn_id: 'noThread' }));
  assert.deepEqual(t.turnsByThread.get('th'), [turn]);
  assert.equal(t.turnsByThread.get(''), undefined);
  assert.deepEqual(t.byThread.get('th'), [0, 1]);
  assert.deepEqual(t.byTurn.get('turn1'), [0, 1]);
});

test('parent and turn ids share the referenced call id string', () => {
  const t = new CallTable();
  t.start(start('root'));
  const child = t.start(start('child', { parent_id: 'root' }));
  assert.equal(t.parentId(child), 'root');
  assert.deepEqual(t.byParent.get('root'), [child]);
});

test('load stores the given line bytes as the body and refuses duplicate ids', () => {
  const t = new CallTable();
  const line = Buffer.from('xx{"attributes":{},"inputs":{"q":1},"output":3,"summary":null}yy');
  const row = t.load({ ...start('c1'), ended_at: 5, exception: null, output: 3, summary: null, run_step_end: null, deleted_at: null }, line, 2, line.length - 2);
  assert.deepEqual(t.body(row), { attributes: {}, inputs: { q: 1 }, output: 3, summary: null });
  assert.throws(() => t.load({ ...start('c1'), ended_at: 5, exception: null, output: 3, summary: null, run_step_end: null, deleted_at: null }, line, 2, line.length - 2), /duplicate call id c1/);
});

test('setDisplayName: the empty string clears the name', () => {
  const t = new CallTable();
  const row = t.start(start('c1', { display_name: 'a' }));
  t.setDisplayName(row, 'b');
  assert.equal(t.displayNames.get(row), 'b');
  t.setDisplayName(row, '');
  assert.equal(t.displayNames.get(row), null);
});

test('output refs come from a non-object output wrapped as {output}', () => {
  const t = new CallTable();
  const row = t.start(start('c1', { inputs: {} }));
  t.end(end('c1', { output: 'weave:///e/p/object/o:d2' }));
  assert.deepEqual(t.outputRefs.get(row), ['weave:///e/p/object/o:d2']);
  assert.equal(t.inputRefs.get(row), null);
});

test('MultiIndex keeps single rows unboxed and rows in insertion order', () => {
  const ix = new MultiIndex<string>();
  ix.add('k', 1);
  assert.deepEqual(ix.get('k'), [1]);
  ix.add('k', 4);
  ix.add('k', 7);
  assert.deepEqual(ix.get('k'), [1, 4, 7]);
  ix.remove('k', 4);
  ix.remove('k', 1);
  assert.deepEqual(ix.get('k'), [7]);
  ix.remove('k', 7);
  assert.equal(ix.get('k'), undefined);
  assert.equal(ix.size, 0);
});

test('SparseColumn stores only non-null cells', () => {
  const c = new SparseColumn<string>();
  assert.equal(c.get(3), null);
  c.set(3, 'x');
  assert.equal(c.get(3), 'x');
  c.set(3, null);
  assert.equal(c.get(3), null);
});

test('SparseColumn answers as a Map of its cells: loads in row order, writes out of order, nulls, restores, entries ascending', () => {
  type Op = { kind: 'init' | 'set' | 'get'; row: number; value: number | null };
  const op = fc.record({ kind: fc.constantFrom('init' as const, 'set' as const, 'get' as const), row: fc.nat(200), value: fc.option(fc.nat(1000), { freq: 3 }) });
  fc.assert(
    fc.property(fc.uniqueArray(fc.nat(150), { maxLength: 30 }), fc.array(op, { maxLength: 300 }), fc.boolean(), (restoredRows, ops, appendInOrder) => {
      const c = new SparseColumn<number>();
      const model = new Map<number, number>();
      const rows = Int32Array.from(restoredRows.sort((a, b) => a - b));
      if (rows.length > 0) c.restore(rows, (k) => 10_000 + k);
      rows.forEach((r, k) => model.set(r, 10_000 + k));
      // A load: each new row in order, most of them null.
      let next = rows.length === 0 ? 0 : rows[rows.length - 1] + 1;
      for (const o of ops) {
        const row = appendInOrder && o.kind === 'init' ? next++ : o.row;
        if (o.kind === 'get') assert.equal(c.get(row), model.get(row) ?? null);
        else if (o.kind === 'init') {
          if (model.has(row) && o.value === null) continue; // init is for a new row: nothing to remove
          c.init(row, o.value);
          if (o.value !== null) model.set(row, o.value);
        } else {
          c.set(row, o.value);
          if (o.value === null) model.delete(row);
          else model.set(row, o.value);
        }
      }
      for (let r = 0; r < next + 210; r++) assert.equal(c.get(r), model.get(r) ?? null);
      assert.deepEqual([...c.entries()], [...model].sort((a, b) => a[0] - b[0]));
    }),
    { numRuns: 400 },
  );
});

test('bodyPart parses one part alone, with the defaults of body()', () => {
  const t = new CallTable();
  const line = Buffer.from('{"id":"c1","inputs":null,"output":{"o":[1,"}"]},"attributes":{"a":"x,y"}}');
  const row = t.load({ ...start('c1'), ended_at: null, exception: null, output: null, summary: null, run_step_end: null, deleted_at: null }, line, 0, line.length);
  assert.deepEqual(t.bodyPart(row, 'inputs'), {});
  assert.deepEqual(t.bodyPart(row, 'output'), { o: [1, '}'] });
  assert.deepEqual(t.bodyPart(row, 'attributes'), { a: 'x,y' });
  assert.equal(t.bodyPart(row, 'summary'), null);
  for (const part of ['attributes', 'inputs', 'output', 'summary'] as const) assert.deepEqual(t.bodyPart(row, part), t.body(row)[part]);
});

test('bodyPartTexts: the stored part texts, remembered per row and refreshed when the body changes', () => {
  const t = new CallTable();
  const row = t.start(start('c1'));
  assert.deepEqual(t.bodyPartTexts(row), ['{"a":1}', '{"x":"weave:///e/p/object/o:d1"}', 'null', 'null']);
  // Read again from the remembered spans.
  assert.deepEqual(t.bodyPartTexts(row), ['{"a":1}', '{"x":"weave:///e/p/object/o:d1"}', 'null', 'null']);
  t.end(end('c1', { output: { y: [1, 2] } }));
  assert.deepEqual(t.bodyPartTexts(row), ['{"a":1}', '{"x":"weave:///e/p/object/o:d1"}', '{"y":[1,2]}', '{"status_counts":{"error":0}}']);
  assert.deepEqual(t.bodyPart(row, 'output'), { y: [1, 2] });
  // A record line without some parts, spaced as written; and a body too long to remember spans for.
  const line = Buffer.from('{"id":"c2", "inputs" : {"q": "a b"} , "summary":null}');
  const rec = { ...start('c2'), ended_at: null, exception: null, output: null, summary: null, run_step_end: null, deleted_at: null };
  const r2 = t.load(rec, line, 0, line.length);
  for (let i = 0; i < 2; i++) assert.deepEqual(t.bodyPartTexts(r2), [null, '{"q": "a b"}', null, 'null']);
  assert.deepEqual(t.bodyPart(r2, 'attributes'), {});
  const big = Buffer.from(JSON.stringify({ id: 'c3', inputs: { s: 'x'.repeat(70_000) }, output: 1 }));
  const r3 = t.load({ ...rec, id: 'c3' }, big, 0, big.length);
  for (let i = 0; i < 2; i++) {
    const parts = t.bodyPartTexts(r3);
    assert.equal(parts[1]!.length, 70_008);
    assert.equal(parts[2], '1');
  }
});

test('partByteSpans: offsets into the arena chunk; setPartByteSpans hands spans over at load; the summary check is remembered', () => {
  const t = new CallTable();
  const rec = { ...start('c1'), ended_at: null, exception: null, output: null, summary: null, run_step_end: null, deleted_at: null };
  const text = (row: number, spans: Int32Array, k: number) => Buffer.from(t.bodyChunkBytes(row).subarray(spans[2 * k], spans[2 * k + 1])).toString();
  const line = Buffer.from('xx{"inputs":{"é":"😀"},"summary":{"a":{"weave":1}}}yy');
  const row = t.load(rec, line, 2, line.length - 2);
  const spans = new Int32Array(8);
  for (let i = 0; i < 2; i++) {
    t.partByteSpans(row, spans);
    assert.equal(spans[0], -1);
    assert.equal(text(row, spans, 1), '{"é":"😀"}');
    assert.equal(text(row, spans, 3), '{"a":{"weave":1}}');
    assert.equal(spans[6] - t.bodyStart(row), 34); // bytes, not characters
    assert.equal(t.summaryMentionsWeave(row), true);
  }
  // Spans handed over (relative to the body) are used as they are: here deliberately the
  // inputs' span alone, to show that no scan replaced them.
  const other = Buffer.from('{"inputs":{"q":1},"summary":{"n":"\\u0041"}}');
  const r2 = t.load({ ...rec, id: 'c2' }, other, 0, other.length);
  t.setPartByteSpans(r2, [-1, -1, 10, 17, -1, -1, -1, -1]);
  assert.deepEqual(t.bodyPartTexts(r2), [null, '{"q":1}', null, null]);
  assert.equal(t.summaryMentionsWeave(r2), false);
  // A new body (an end) forgets both.
  const r3 = t.start(start('c3'));
  t.end(end('c3', { summary: { weave: { x: 1 } } }));
  assert.equal(t.summaryMentionsWeave(r3), true);
  t.partByteSpans(r3, spans);
  assert.equal(text(r3, spans, 3), '{"weave":{"x":1}}');
});

test('bodyPartBytes(row, k): part k\'s span and bytes, as partByteSpans gives them, before and after the spans are remembered', () => {
  const rec = { ...start('c'), ended_at: null, exception: null, output: null, summary: null, run_step_end: null, deleted_at: null };
  const names = ['attributes', 'inputs', 'output', 'summary'];
  const value = fc.oneof(fc.constantFrom('null', '1', '"x"', '{}', '{"a":[1,{"b":"é"}]}'), fc.nat({ max: 70_000 }).map((n) => JSON.stringify({ s: 'z'.repeat(n) })));
  fc.assert(
    fc.property(fc.array(fc.array(fc.option(value), { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }), (bodies, handOver) => {
      const t = new CallTable();
      const rows = bodies.map((parts, i) => {
        const text = '{' + parts.flatMap((v, k) => (v === null ? [] : [`"${names[k]}":${v}`])).join(',') + '}';
        const line = Buffer.from('ab' + text + 'c');
        const row = t.load({ ...rec, id: `c${i}` }, line, 2, line.length - 1);
        if (handOver[i]) {
          // The spans a loader hands over: the scan's own, relative to the body.
          const spans = new Int32Array(8);
          t.partByteSpans(row, spans);
          const base = t.bodyStart(row);
          t.setPartByteSpans(row, [...spans].map((x) => (x < 0 ? -1 : x - base)));
        }
        return row;
      });
      const spans = new Int32Array(8), one = new Int32Array(2);
      for (let pass = 0; pass < 2; pass++) {
        for (const row of rows) {
          for (let k = 0; k < 4; k++) {
            const bytes = t.bodyPartBytes(row, k, one);
            t.partByteSpans(row, spans);
            if (spans[2 * k] < 0) assert.equal(bytes, null);
            else {
              assert.equal(bytes, t.bodyChunkBytes(row));
              assert.deepEqual([...one], [spans[2 * k], spans[2 * k + 1]]);
              assert.equal(Buffer.from(bytes!.subarray(one[0], one[1])).toString(), bodies[rows.indexOf(row)][k]);
            }
          }
        }
      }
    }),
    { numRuns: 60 },
  );
});

test('a call table holds no array a caller could index by row: its string columns are read through id(row), traceId(row), ...', () => {
  const t = new CallTable();
  t.start(start('a'));
  t.start(start('b', { parent_id: 'a', thread_id: 'th', turn_id: 'b' }));
  const arrays = Object.entries(t).filter(([, v]) => Array.isArray(v)).map(([k]) => k);
  assert.deepEqual(arrays, []);
  for (const name of ['ids', 'traceIds', 'parentIds', 'threadIds', 'turnIds', 'userIds']) assert.equal(name in t, false, name);
  assert.deepEqual([t.id(1), t.traceId(1), t.parentId(1), t.threadId(1), t.turnId(1), t.userId(1), t.isRoot(0), t.isRoot(1)], ['b', 't1', 'a', 'th', 'b', 'u', true, false]);
});

test('loaded rows leave the trace, op and relation indexes to first use; they come out as if built row by row, whatever comes next', () => {
  // Neither part sets `texts`: the record is the two parts' fields.
  const record = (id: string, extra: Partial<CallStartPart> = {}): CallRecordPart => ({ ...start(id, extra), ...end(id), deleted_at: null }) as CallRecordPart;
  const line = new TextEncoder().encode('{"attributes":{},"inputs":{},"output":null,"summary":null}');
  const loadRows = (t: CallTable, rows: Array<ReturnType<typeof record>>) => {
    for (const r of rows) t.load(r, line, 0, line.length);
  };
  const rows = [
    record('a', { trace_id: 't1', thread_id: 'th', turn_id: 'a' }),
    record('b', { trace_id: 't1', parent_id: 'a', thread_id: 'th', turn_id: 'a' }),
    record('c', { trace_id: 't2', op_name: 'weave:///e/p/op/g:v', thread_id: 'th', turn_id: 'c' }),
  ];
  const indexes = (t: CallTable) => ({
    trace: [t.byTrace.get('t1'), t.byTrace.get('t2')],
    parent: t.byParent.get('a'),
    thread: t.byThread.get('th'),
    turn: [t.byTurn.get('a'), t.byTurn.get('c')],
    op: [t.byOp.get(0), t.byOp.get(1)],
    turns: t.turnsByThread.get('th'),
    ids: [...t.byId],
  });
  // Read after the whole load, after a write appended a row, and in the middle of the load.
  const whole = new CallTable();
  loadRows(whole, rows);
  assert.deepEqual(indexes(whole), { trace: [[0, 1], [2]], parent: [1], thread: [0, 1, 2], turn: [[0, 1], [2]], op: [[0, 1], [2]], turns: [0, 2], ids: [['a', 0], ['b', 1], ['c', 2]] });
  const written = new CallTable();
  loadRows(written, rows);
  written.start(start('d', { trace_id: 't2', parent_id: 'c' }));
  assert.deepEqual(written.byTrace.get('t2'), [2, 3]);
  assert.deepEqual(written.byParent.get('c'), [3]);
  assert.deepEqual(written.byOp.get(0), [0, 1, 3]);
  const interrupted = new CallTable();
  loadRows(interrupted, rows.slice(0, 2));
  assert.deepEqual(interrupted.byTrace.get('t1'), [0, 1]);
  loadRows(interrupted, rows.slice(2));
  assert.deepEqual(indexes(interrupted), indexes(whole));
  // A repeated start of a loaded row moves it between the (now built) indexes.
  whole.start(start('c', { trace_id: 't1' }));
  assert.deepEqual([whole.byTrace.get('t1'), whole.byTrace.get('t2')], [[0, 1, 2], undefined]);
});

test('ids that share a hash are told apart: every write, load and lookup as under the real hash', () => {
  const names = ['a', 'b', 'é', 'ab', 'ba', 'aé', 'x1', 'x2'];
  type Op = { kind: 'start' | 'end' | 'startEnded' | 'load'; id: number; parent: number };
  const op = fc.record({ kind: fc.constantFrom('start' as const, 'end' as const, 'startEnded' as const, 'load' as const), id: fc.nat(names.length - 1), parent: fc.nat(names.length) });
  const line = new TextEncoder().encode('{"attributes":{},"inputs":{},"output":null,"summary":null}');
  const run = (t: CallTable, ops: Op[]) => {
    const outcomes: unknown[] = [];
    for (const o of ops) {
      const id = names[o.id];
      const parent_id = o.parent < names.length ? names[o.parent] : null;
      try {
        if (o.kind === 'start') t.start(start(id, { parent_id, turn_id: parent_id }));
        else if (o.kind === 'end') t.end(end(id));
        else if (o.kind === 'startEnded') t.startEnded(start(id, { parent_id }), end(id));
        else t.load({ ...start(id, { parent_id }), ...end(id), deleted_at: null } as CallRecordPart, line, 0, line.length);
        outcomes.push('ok');
      } catch (e) {
        outcomes.push(e instanceof DuplicateCallError ? `duplicate ${e.callId}` : String(e));
      }
    }
    const rows = Array.from({ length: t.size }, (_, r) => [t.id(r), t.parentId(r), t.turnId(r), t.endedAt.data[r], t.bodyText(r)]);
    // A parent (or turn) id is the parent's own id string when it is stored: told apart from a colliding id's.
    const sameStrings = Array.from({ length: t.size }, (_, r) => {
      const p = t.parentId(r);
      const pr = p === null ? undefined : t.rowOf(p);
      return pr === undefined ? null : t.id(pr) === p;
    });
    return { outcomes, rows, sameStrings, lookups: [...names, 'absent', 'c'].map((n) => t.rowOf(n)), ids: [...t.byId], pending: t.pendingEndCount };
  };
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const expected = run(new CallTable(), ops);
      for (const buckets of [1, 2]) assert.deepEqual(run(new CallTable(new CollidingIdHash(buckets)), ops), expected);
    }),
    { numRuns: 300 },
  );
});

test('user ids are stored as given, through the recent users and the shared strings, past the recent users\' bound', () => {
  fc.assert(
    fc.property(fc.array(fc.option(fc.nat(600), { freq: 5 }), { minLength: 1, maxLength: 1500 }), (users) => {
      const t = new CallTable();
      const line = new TextEncoder().encode('{"attributes":{},"inputs":{},"output":null,"summary":null}');
      users.forEach((u, i) => {
        const user_id = u === null ? null : `user-${u}`;
        if (i % 3 === 0) t.start(start(`c${i}`, { user_id }));
        else t.load({ ...start(`c${i}`, { user_id }), ...end(`c${i}`), deleted_at: null } as CallRecordPart, line, 0, line.length);
      });
      assert.deepEqual(Array.from({ length: t.size }, (_, r) => t.userId(r)), users.map((u) => (u === null ? null : `user-${u}`)));
    }),
    { numRuns: 40 },
  );
});
