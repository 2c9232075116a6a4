import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestContext, RouteResult } from '../../api/types.ts';
import { rowDigest, tableDigest } from '../../core/digest.ts';
import { TqError } from '../../core/errors.ts';
import { parseLossless } from '../../core/json/lossless.ts';
import { createEngine } from '../../engine.ts';
import { tableQueryRoute, tableQueryStatsRoute, tableQueryStreamRoute, tableRoutes } from './route.ts';
import { candidatePositions, resolvedTable, TableCaches, tableCaches } from './run.ts';
import { ProjectStore } from '../../store/project.ts';
import fc from 'fast-check';
import { parseExact } from '../../core/json/exact.ts';
import { usePathWalkWasm } from '../../core/json/path-walk.ts';
import { FLOAT_NUMBER, rowComparator, rowSortValue, setSortColumns, TEXT_MADE, textPrefixKey, textsFor, type SortColumns } from './row-sort.ts';

const PROJECT = 'acme/evals';

/** Stores rows (JSON texts, first writer wins per digest) and a table over them; returns the engine and digests. */
/**
 * A project holding one table of `rowTexts`. `packed`: the row texts are slices of one string,
 * as a table_create stores them (ProjectStore.tableTextsWhenStored), for every position
 * ('all') or all but every third, as if those rows were held already ('some').
 */
function setup(rowTexts: string[], project = PROJECT, packed: 'all' | 'some' | null = null) {
  const engine = createEngine();
  const p = engine.store.projectForWrite(project);
  const joined = rowTexts.join('');
  const from = new Int32Array(rowTexts.length).fill(-1), to = new Int32Array(rowTexts.length);
  const firstAt = new Map<string, number>();
  let at = 0;
  const digests = rowTexts.map((text, i) => {
    const digest = rowDigest(parseLossless(text));
    const slice = joined.slice(at, (at += text.length));
    if (!p.rows.has(digest)) {
      const own = packed !== null && !(packed === 'some' && i % 3 === 0);
      p.rows.set(digest, { digest, text: own ? slice : text });
      if (own) firstAt.set(digest, i);
    }
    const first = firstAt.get(digest);
    if (first !== undefined) {
      from[i] = joined.length - rowTexts.slice(first).join('').length;
      to[i] = from[i] + rowTexts[first].length;
    }
    return digest;
  });
  const digest = tableDigest(digests);
  p.tables.set(digest, digests);
  if (packed !== null) p.tableTextsWhenStored.set(digest, { text: joined, from, to });
  return { engine, digest, rowDigests: digests };
}

const authorized: string[] = [];
const ctx: RequestContext = { userId: 'alice', authorize: (id) => void authorized.push(id), canRead: () => true };

function lines(result: RouteResult): string[] {
  assert.equal(result.kind, 'stream');
  return [...(result as { lines: Iterable<string> }).lines];
}

type Row = { digest: string; val: Record<string, unknown>; original_index: number };

function query(engine: ReturnType<typeof createEngine>, body: Record<string, unknown>): Row[] {
  return lines(tableQueryStreamRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, ...body } }, ctx)).map(
    (l) => JSON.parse(l) as Row,
  );
}

const indexes = (rows: Row[]) => rows.map((r) => r.original_index);

test('routes: /table/query_stream, /table/query and /table/query_stats are exported', () => {
  assert.deepEqual(
    tableRoutes.map((r) => [r.path, r.method, r.body]),
    [
      ['/table/query_stream', 'POST', 'json'],
      ['/table/query', 'POST', 'json'],
      ['/table/query_stats', 'POST', 'json'],
    ],
  );
});

test('semantics.md#table-row-line, semantics.md#table-default-order: each line is {digest, val, original_index} in table order; the project is authorized', () => {
  const { engine, digest, rowDigests } = setup(['{"q": "a"}', '{"q": "b"}', '{"q": "c"}']);
  authorized.length = 0;
  const out = lines(tableQueryStreamRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, digest } }, ctx));
  assert.deepEqual(out, [
    `{"digest":"${rowDigests[0]}","val":{"q": "a"},"original_index":0}`,
    `{"digest":"${rowDigests[1]}","val":{"q": "b"},"original_index":1}`,
    `{"digest":"${rowDigests[2]}","val":{"q": "c"},"original_index":2}`,
  ]);
  assert.deepEqual(authorized, [PROJECT]);
});

test('semantics.md#table-val-verbatim: val is the stored text verbatim: key order, 1.0 and big integers survive', () => {
  const text = '{"z": 1.0, "a": 12345678901234567890, "m": [1e-07, "é"]}';
  const { engine, digest } = setup([text]);
  const [line] = lines(tableQueryStreamRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, digest } }, ctx));
  assert.ok(line.includes(`"val":${text},`), line);
});

test('JSONL: a stored body with line breaks (pretty-printed) still yields one line, strings untouched', () => {
  const { engine, digest } = setup(['{\n  "a": "x\\ny",\r\n  "b": [1,\n 2]\n}']);
  const out = lines(tableQueryStreamRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, digest } }, ctx));
  assert.equal(out.length, 1);
  assert.ok(!/[\r\n]/.test(out[0]));
  assert.deepEqual(JSON.parse(out[0]).val, { a: 'x\ny', b: [1, 2] });
});

test('semantics.md#digest-row, semantics.md#digest-table: rows and tables are addressed by Weave digests (semantics.md#digest-vectors)', () => {
  const { engine, digest, rowDigests } = setup(['{"a": 1}', '{"b":"x","a":[1,2.5,null,true]}']);
  assert.equal(digest, 'ef58432d13add22b5a18d3888ccc0b83707cda76e23187022a4bc3eb42a8ec78');
  assert.deepEqual(rowDigests, ['XdhgKMbg1k4iUYb5astpM4ssWXZN95FiEH9cS7NNExA', 'yYx5Sw6mdkkIiKkcgij0CUuX6hWvZQ05ok4gopVBCUU']);
  const rows = query(engine, { digest, filter: { row_digests: ['yYx5Sw6mdkkIiKkcgij0CUuX6hWvZQ05ok4gopVBCUU'] } });
  assert.deepEqual(rows, [{ digest: 'yYx5Sw6mdkkIiKkcgij0CUuX6hWvZQ05ok4gopVBCUU', val: { b: 'x', a: [1, 2.5, null, true] }, original_index: 1 }]);
});

test('semantics.md#table-unknown-digest: unknown table digest or unknown project → empty stream, not an error', () => {
  const { engine, digest } = setup(['{"a": 1}']);
  assert.deepEqual(query(engine, { digest: 'nope' }), []);
  assert.deepEqual(lines(tableQueryStreamRoute.run(engine, { kind: 'value', value: { project_id: 'x/y', digest } }, ctx)), []);
});

test('semantics.md#table-duplicates, semantics.md#table-original-index: a digest listed twice comes back twice, each with its own original_index', () => {
  const { engine, digest, rowDigests } = setup(['{"a": 1}', '{"b": 2}', '{"a": 1}']);
  const rows = query(engine, { digest });
  assert.deepEqual(indexes(rows), [0, 1, 2]);
  assert.equal(rows[0].digest, rows[2].digest);
  // Filtering by that digest returns every occurrence.
  assert.deepEqual(indexes(query(engine, { digest, filter: { row_digests: [rowDigests[0]] } })), [0, 2]);
});

test('semantics.md#table-filter-digests: the row-digest filter keeps table order; unknown digests match nothing', () => {
  const { engine, digest, rowDigests } = setup(['{"i": 0}', '{"i": 1}', '{"i": 2}', '{"i": 3}']);
  const rows = query(engine, { digest, filter: { row_digests: [rowDigests[3], 'unknown', rowDigests[1]] } });
  assert.deepEqual(indexes(rows), [1, 3]);
  assert.deepEqual(query(engine, { digest, filter: { row_digests: ['unknown'] } }), []);
});

test('semantics.md#empty-list-means-all: filter.row_digests [] means all rows', () => {
  const { engine, digest } = setup(['{"i": 0}', '{"i": 1}']);
  assert.deepEqual(indexes(query(engine, { digest, filter: { row_digests: [] } })), [0, 1]);
});

test('semantics.md#table-missing-bodies: a listed digest without a stored body is skipped, leaving a gap in original_index', () => {
  const { engine, rowDigests } = setup(['{"i": 0}', '{"i": 2}']);
  const listed = [rowDigests[0], 'X'.repeat(43), rowDigests[1]];
  const digest = tableDigest(listed);
  engine.store.project(PROJECT)!.tables.set(digest, listed);
  assert.deepEqual(indexes(query(engine, { digest })), [0, 2]);
  // Paging counts only rows that exist.
  assert.deepEqual(indexes(query(engine, { digest, offset: 1 })), [2]);
  assert.deepEqual(indexes(query(engine, { digest, sort_by: [{ field: 'i', order: 'desc' }], limit: 1 })), [2]);
});

test('semantics.md#table-paging: offset skips, limit caps, limit 0 returns nothing, offset past the end is empty', () => {
  const { engine, digest } = setup(['{"i": 0}', '{"i": 1}', '{"i": 2}', '{"i": 3}', '{"i": 4}']);
  assert.deepEqual(indexes(query(engine, { digest, limit: 2 })), [0, 1]);
  assert.deepEqual(indexes(query(engine, { digest, offset: 3 })), [3, 4]);
  assert.deepEqual(indexes(query(engine, { digest, offset: 1, limit: 2 })), [1, 2]);
  assert.deepEqual(query(engine, { digest, limit: 0 }), []);
  assert.deepEqual(query(engine, { digest, offset: 9 }), []);
});

test('semantics.md#table-original-index: original_index survives sort, filter and paging together', () => {
  const { engine, digest, rowDigests } = setup(['{"n": 3}', '{"n": 1}', '{"n": 4}', '{"n": 1.5}', '{"n": 5}', '{"n": 9}']);
  const rows = query(engine, {
    digest,
    filter: { row_digests: [rowDigests[0], rowDigests[1], rowDigests[3], rowDigests[4]] },
    sort_by: [{ field: 'n', order: 'desc' }],
    offset: 1,
    limit: 2,
  });
  // Kept: n=3 (0), 1 (1), 1.5 (3), 5 (4); desc → 5, 3, 1.5, 1; page → 3, 1.5.
  assert.deepEqual(
    rows.map((r) => [r.val.n, r.original_index]),
    [
      [3, 0],
      [1.5, 3],
    ],
  );
});

/** One row per kind of value, in a fixed table order (indexes in comments). */
const MIXED = [
  '{"v": 10}', //  0 number
  '{"v": "abc"}', //  1 plain string
  '{"v": 9}', //  2 number
  '{"v": null}', //  3 JSON null
  '{"v": "10"}', //  4 numeric string, equal to row 0
  '{"v": true}', //  5 boolean
  '{"w": 1}', //  6 missing
  '{"v": {"x": 1}}', //  7 object → ''
  '{"v": "9.5"}', //  8 numeric string
  '{"v": "B"}', //  9 plain string (uppercase sorts before lowercase bytewise)
  '{"v": false}', // 10 boolean
  '{"v": [1, 2]}', // 11 array → ''
  '{"v": 11}', // 12 number
  '{"v": "1e1"}', // 13 numeric string in exponent form, = 10
  '{"v": -2.5}', // 14 negative float
];

test('semantics.md#table-sort-missing-last, semantics.md#table-sort-numeric-first, semantics.md#table-sort-keys: mixed types ascending: numbers and numeric strings numerically, then strings bytewise, then null/missing', () => {
  const { engine, digest } = setup(MIXED);
  const got = indexes(query(engine, { digest, sort_by: [{ field: 'v', order: 'asc' }] }));
  // -2.5, 9, "9.5", 10 / "10" (equal float and text: table order), "1e1" (same float, text after "10"), 11,
  // then non-numerics by text: {} '' and [] '' (table order), "B", "abc", false, true,
  // then absent: missing ('') before null ('null').
  assert.deepEqual(got, [14, 2, 8, 0, 4, 13, 12, 7, 11, 9, 1, 10, 5, 6, 3]);
});

test('semantics.md#table-sort-missing-last, semantics.md#table-sort-numeric-first, semantics.md#table-sort-keys: mixed types descending: present values first, numbers before strings, null/missing still last', () => {
  const { engine, digest } = setup(MIXED);
  const got = indexes(query(engine, { digest, sort_by: [{ field: 'v', order: 'desc' }] }));
  // 11, "1e1", 10 / "10" (tie → table order), "9.5", 9, -2.5, then true, false, "abc", "B", {} / [] (tie),
  // then null ('null') before missing ('').
  assert.deepEqual(got, [12, 13, 0, 4, 8, 2, 14, 5, 10, 1, 9, 7, 11, 3, 6]);
});

test('semantics.md#table-sort-numeric-first: "10" sorts between 9 and 11, not after "1" and before "9" as text would', () => {
  const { engine, digest } = setup(['{"v": "11"}', '{"v": "9"}', '{"v": "10"}', '{"v": "1"}']);
  const got = query(engine, { digest, sort_by: [{ field: 'v', order: 'asc' }] }).map((r) => r.val.v);
  assert.deepEqual(got, ['1', '9', '10', '11']);
});

test('semantics.md#table-sort-keys: nested dot paths; objects reached by a path sort as the empty string', () => {
  const { engine, digest } = setup(['{"n": {"x": "b"}}', '{"n": {"x": "a"}}', '{"n": "flat"}', '{"n": {"x": {"deep": 1}}}']);
  // "flat" has no n.x → missing group, last.
  assert.deepEqual(indexes(query(engine, { digest, sort_by: [{ field: 'n.x', order: 'asc' }] })), [3, 1, 0, 2]);
  assert.deepEqual(indexes(query(engine, { digest, sort_by: [{ field: 'n.x', order: 'desc' }] })), [0, 1, 3, 2]);
});

test('semantics.md#table-sort-keys: a numeric path part indexes arrays for the value but not for presence', () => {
  const { engine, digest } = setup(['{"a": [5]}', '{"a": {"0": 7}}', '{"a": [3]}', '{"b": 1}']);
  // {"a":{"0":7}} is present (JSONType key "0") but JSON_VALUE $."a"[0] misses: value ''.
  // The arrays are "missing" for presence, then ordered among the absent rows by their element
  // (3 before 5), and the row without `a` reads '' (no float) after them.
  assert.deepEqual(indexes(query(engine, { digest, sort_by: [{ field: 'a.0', order: 'asc' }] })), [1, 2, 0, 3]);
});

test('semantics.md#table-sort-field: several keys apply lexicographically, in the order given; ties keep table order', () => {
  const { engine, digest } = setup([
    '{"g": "x", "n": 2}',
    '{"g": "y", "n": 1}',
    '{"g": "x", "n": 3}',
    '{"g": "y", "n": 1}',
    '{"g": "x", "n": 2, "k": 0}',
  ]);
  const got = indexes(query(engine, { digest, sort_by: [{ field: 'g', order: 'desc' }, { field: 'n', order: 'asc' }] }));
  assert.deepEqual(got, [1, 3, 0, 4, 2]);
});

test('bounded top-k: a small page of a large sorted table equals the slice of the full sort', () => {
  const texts = Array.from({ length: 500 }, (_, i) => `{"k": ${(i * 7919) % 101}, "i": ${i}}`);
  const { engine, digest } = setup(texts);
  const sort_by = [{ field: 'k', order: 'desc' }];
  const full = indexes(query(engine, { digest, sort_by }));
  assert.equal(full.length, 500);
  assert.deepEqual(indexes(query(engine, { digest, sort_by, offset: 7, limit: 5 })), full.slice(7, 12));
  assert.deepEqual(indexes(query(engine, { digest, sort_by, limit: 3 })), full.slice(0, 3));
  // Equal keys keep table order: within k = 100 the indexes ascend.
  const hundreds = query(engine, { digest, sort_by, limit: 5 }).filter((r) => r.val.k === 100);
  assert.ok(hundreds.length >= 2);
  assert.deepEqual(indexes(hundreds), [...indexes(hundreds)].sort((a, b) => a - b));
});

test('semantics.md#table-query-nonstream: /table/query returns {rows} with the same rows and order as the stream', () => {
  const { engine, digest } = setup(['{"n": 2}', '{"n": 1}', '{"n": 2}']);
  const body = { project_id: PROJECT, digest, sort_by: [{ field: 'n', order: 'asc' }] };
  const result = tableQueryRoute.run(engine, { kind: 'value', value: body }, ctx);
  assert.equal(result.kind, 'json');
  const streamed = query(engine, { digest, sort_by: body.sort_by });
  assert.deepEqual((result as { body: unknown }).body, { rows: streamed });
  assert.deepEqual(indexes(streamed), [1, 0, 2]);
});

test('semantics.md#errors-before-stream: validation errors are thrown by run(), before any stream exists', () => {
  const { engine, digest } = setup(['{"n": 1}']);
  assert.throws(
    () => tableQueryStreamRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, digest, sort_by: [{ field: 'a..b', order: 'asc' }] } }, ctx),
    (e: unknown) => e instanceof TqError && e.status === 400,
  );
  assert.throws(
    () => tableQueryStreamRoute.run(engine, { kind: 'text', text: '{"project_id": ' }, ctx),
    (e: unknown) => e instanceof TqError && e.status === 422,
  );
});

test('semantics.md#table-stats: /table/query_stats counts the digest list with duplicates; unknown table → 0', () => {
  const { engine, digest } = setup(['{"a": 1}', '{"a": 1}', '{"b": 1}']);
  const stats = (d: string) => tableQueryStatsRoute.run(engine, { kind: 'value', value: { project_id: PROJECT, digest: d } }, ctx);
  assert.deepEqual(stats(digest), { kind: 'json', body: { count: 3 } });
  assert.deepEqual(stats('unknown'), { kind: 'json', body: { count: 0 } });
});

test('candidatePositions: unfiltered positions are cached per table until the project stores another row; a filter is never cached', () => {
  const rows = new Map<string, { digest: string; text: string }>([
    ['a', { digest: 'a', text: '{"x":1}' }],
    ['c', { digest: 'c', text: '{"x":3}' }],
  ]);
  const digests = ['a', 'b', 'c', 'a'];
  const caches = new TableCaches();
  const first = candidatePositions(caches, digests, rows, null);
  assert.deepEqual([...first], [0, 2, 3]);
  assert.equal(candidatePositions(caches, digests, rows, null), first);
  // The positions and the rows by position (a reference each).
  assert.equal(caches.bytes(), first.byteLength + 8 * digests.length);
  assert.deepEqual([...candidatePositions(caches, digests, rows, new Set(['a']))], [0, 3]);
  // The gap at 1 fills once its row is stored: the cached list is not reused.
  rows.set('b', { digest: 'b', text: '{"x":2}' });
  assert.deepEqual([...candidatePositions(caches, digests, rows, null)], [0, 1, 2, 3]);
});

test('candidatePositions: a digest filter gives exactly the positions of the wanted digests, keys shared or not', () => {
  // Digests sharing their first six characters share a prefilter key: the string decides.
  const names = ['AAAAAAx', 'AAAAAAy', 'AAAAAA', 'AAAAA', 'BBBBBBz', 'a', '', 'é€😀xyz'];
  for (let i = 0; i < 300; i++) names.push(`d${(i * 7919) % 1000}-${i % 13}`);
  const rows = new Map(names.filter((_, i) => i % 5 !== 4).map((d) => [d, { digest: d, text: '{}' }] as const));
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const digests = Array.from({ length: 2000 }, () => names[rand(names.length)]);
  const caches = new TableCaches();
  for (let round = 0; round < 48; round++) {
    const wanted = new Set(Array.from({ length: 1 + rand(30) }, () => (rand(4) === 0 ? `absent${rand(9)}` : names[rand(names.length)])));
    // Every round also wants one of the digests that share a key, and never its twins.
    for (const twin of names.slice(0, 3)) wanted.delete(twin);
    wanted.add(names[round % 3]);
    const expected = digests.flatMap((d, i) => (rows.has(d) && wanted.has(d) ? [i] : []));
    assert.deepEqual([...candidatePositions(caches, digests, rows, wanted)], expected, [...wanted].join(','));
  }
});

test('resolvedTable: the rows a table held when stored are read by position, and a gap is looked up once its body is stored', () => {
  const project = new ProjectStore('p/t');
  project.rows.set('a', { digest: 'a', text: '{"x":1}' });
  project.storeTable('T', ['a', 'b', 'a']);
  const whenStored = project.tableRowsWhenStored.get('T')!;
  assert.deepEqual(whenStored.map((r) => r?.digest), ['a', undefined, 'a']);
  // Stored again under the same digest: the first list and its rows are kept.
  project.storeTable('T', ['b']);
  assert.deepEqual(project.tables.get('T'), ['a', 'b', 'a']);
  const caches = new TableCaches();
  const before = resolvedTable(caches, project.tables.get('T')!, project.rows, whenStored);
  assert.deepEqual([...before.positions], [0, 2]);
  assert.equal(before.rows[0], project.rows.get('a'));
  project.rows.set('b', { digest: 'b', text: '{"x":2}' });
  const after = resolvedTable(caches, project.tables.get('T')!, project.rows, whenStored);
  assert.deepEqual([...after.positions], [0, 1, 2]);
  assert.equal(after.rows[1], project.rows.get('b'));
  // Rows the caller holds (a snapshot's restore) are kept as given; a list of another length is looked up.
  const held = { digest: 'a', text: '{"x":1}' };
  project.storeTable('U', ['a'], [held]);
  assert.equal(project.tableRowsWhenStored.get('U')![0], held);
  project.storeTable('V', ['a', 'b'], [held]);
  assert.deepEqual(project.tableRowsWhenStored.get('V'), [project.rows.get('a'), project.rows.get('b')]);
  // A list of another length than the table's (not its rows) is not read by position.
  const other = resolvedTable(new TableCaches(), ['b'], project.rows, whenStored);
  assert.equal(other.rows[0], project.rows.get('b'));
  // A table stored with every body: its rows as stored, every position (the same as looked up).
  const full = resolvedTable(new TableCaches(), project.tables.get('V')!, project.rows, project.tableRowsWhenStored.get('V'));
  assert.deepEqual([...full.positions], [0, 1]);
  assert.deepEqual(full.rows, [project.rows.get('a'), project.rows.get('b')]);
});

test('first sort of a path of keys (its first key walked in WebAssembly batches): the order of the rows parsed and read whole, any rows, any path', () => {
  const keys = ['a', 'b', 'é', 'k"q', ''];
  const scalar = fc.oneof(
    fc.constantFrom('1', '1.0', '-2.5e1', '12345678901234567890', 'true', 'false', 'null', '"10"', '" 7"', '"inf"', '""', '"\\u0041b"', '"é"', '"x\\"y"'),
    fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
  );
  const { value } = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 3 }).map((items) => '[' + items.join(', ') + ']'),
      fc
        .array(fc.tuple(fc.constantFrom(...keys), fc.boolean(), tie('value')), { maxLength: 4 })
        .map((members) => '{' + members.map(([k, esc, v]) => (esc ? '"\\u' + (k.charCodeAt(0) || 0x61).toString(16).padStart(4, '0') + JSON.stringify(k.slice(1)).slice(1) : JSON.stringify(k)) + ' : ' + v).join(',') + '}'),
    ),
  }));
  const row = fc.array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 4 }).map((members) => '{' + members.map(([k, v]) => JSON.stringify(k) + ':' + v).join(',') + '}');
  fc.assert(
    fc.property(fc.array(row, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 40 }), fc.array(fc.constantFrom(...keys.filter((k) => k !== '')), { minLength: 1, maxLength: 3 }), fc.constantFrom('asc', 'desc'), (texts, copies, path, order) => {
      // Copies with a distinct id: more rows than one batch of the walk (1024) in some runs.
      const all = Array.from({ length: copies }, (_, c) => texts.map((t, i) => t.replace(/^\{/, `{"id":${c * 1000 + i}${t === '{}' ? '' : ','}`))).flat();
      const { engine, digest } = setup(all);
      const got = indexes(query(engine, { digest, sort_by: [{ field: path.join('.'), order }] }));
      const values = all.map((t) => rowSortValue(parseExact(t), path));
      const cmp = rowComparator([values], [order]);
      const want = values.map((_, i) => i).sort(cmp);
      assert.deepEqual(got, want);
    }),
    { numRuns: 60 },
  );
});

test('first sort of a table with the WebAssembly walk off (usePathWalkWasm(false)): the same order', () => {
  const texts = ['{"v": 3}', '{"v": "x"}', '{"w": 1}', '{"v": null}', '{"v": {"a": 1}}', '{"\\u0076": 2}', '{"v": 1, "v": 9}'];
  const order = (on: boolean) => {
    usePathWalkWasm(on);
    try {
      const { engine, digest } = setup(texts);
      return indexes(query(engine, { digest, sort_by: [{ field: 'v', order: 'desc' }] }));
    } finally {
      usePathWalkWasm(true);
    }
  };
  assert.deepEqual(order(false), [6, 0, 5, 1, 4, 3, 2]);
  assert.deepEqual(order(true), [6, 0, 5, 1, 4, 3, 2]);
});

test('first sort: a row walked after another of the same byte length gets its own readings, not the last walk\'s (both walks)', () => {
  // 26 bytes each: the JavaScript walk encodes every row into one scratch at the same offsets,
  // so a walk remembered by (bytes, span) would hand row 2 the readings of row 1 (no `v`).
  const all = ['{"id":0,"v":"        "}', '{"id":1,"k":{"v":"plain"}}', '{"id":1000,"v":"        "}', '{"id":1001,"k":{"v":"plain"}}'];
  for (const wasm of [false, true]) {
    usePathWalkWasm(wasm);
    try {
      const { engine, digest } = setup(all);
      assert.deepEqual(indexes(query(engine, { digest, sort_by: [{ field: 'v', order: 'desc' }] })), [0, 2, 1, 3], `wasm ${wasm}`);
      const cols = tableCaches(engine.store).sorts.get(engine.store.project(PROJECT)!.tables.get(digest)!)!.get(JSON.stringify(['v']))!;
      assert.deepEqual([...cols.present], [1, 0, 1, 0], `wasm ${wasm}`);
    } finally {
      usePathWalkWasm(true);
    }
  }
});

/** Values a first sort reads from the bytes, or hands to the text's parse: strings that cast to a float or not, escapes, literals, numbers. */
const TRICKY_VALUES = ['"plain"', '"10"', '" 7 "', '"-1e3"', '"inf"', '""', '"a\\"b"', '"\\u0041"', '"é"', '"😀x"', '"\\ud800"', '"invoice"', '"nan"', '"need"', '"Infinity "', '"0"', '"007"', '"+1"', '".5"', '"9x"', '"\\t1"', '"i"', '"In"', '"iNf"', '"info"', '"N"', '"nAn"', '"nano"', '"~"', '"\u007f"'];
/** Numbers (short ones read from the bytes, long ones and -0 from the text), literals, containers. */
const TRICKY_LITERALS = ['1.5', '-3', '10', '0.1', '1E2', '-0', '1e300', '123456789012345678', '3.141592653589793', 'true', 'false', 'null', '{"x":1}', '[2]', 'true ', '{}', '[]'];

test('first sort: the readings kept for a path are the rows\' parsed readings, ASCII rows (values sliced from the row text) and others, across walk batches', () => {
  let lazyTextsSeen = 0, packedRuns = 0;
  const stringValue = fc.oneof(
    fc.constantFrom(...TRICKY_VALUES),
    fc.constantFrom(...TRICKY_LITERALS),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
    fc.string({ unit: 'binary', maxLength: 12 }).map((s) => JSON.stringify(s)),
  );
  const row = fc.tuple(fc.constantFrom('', '"pad":"ü",', '"pad":[1,"x"],'), fc.boolean(), stringValue).map(([pad, nested, v]) => (nested ? `{${pad}"k":{"v":${v}}}` : `{${pad}"v":${v}}`));
  fc.assert(
    fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 60 }), fc.boolean(), fc.boolean(), fc.constantFrom(null, 'all' as const, 'some' as const), (texts, copies, nested, wasm, packed) => {
      if (readingsMatchParsed(texts, copies, nested, wasm, packed) > 0) lazyTextsSeen++;
      if (packed !== null) packedRuns++;
    }),
    { numRuns: 60 },
  );
  assert.ok(lazyTextsSeen > 0, 'some texts were left to be made on demand');
  assert.ok(packedRuns > 0, 'some tables had their texts packed');
});

test('first sort: each tricky value, in ASCII rows and not, alone and nested, read as parsed (both walks, packed and not)', () => {
  const texts = [...TRICKY_VALUES, ...TRICKY_LITERALS].flatMap((v) => [`{"v":${v}}`, `{"pad":"ü","v":${v}}`, `{"k":{"v":${v}}}`, `{"v":[${v}]}`, '{"w":1}']);
  for (const wasm of [true, false]) {
    for (const packed of [null, 'all', 'some'] as const) {
      for (const nested of [false, true]) assert.ok(readingsMatchParsed(texts, 9, nested, wasm, packed) > 0);
    }
  }
});

/**
 * A first sort's readings of `texts` (each `copies` times, two rows listed twice) against the
 * rows parsed whole; the number of texts left to be made on demand.
 */
function readingsMatchParsed(texts: string[], copies: number, nested: boolean, wasm: boolean, packed: 'all' | 'some' | null): number {
  // Copies with a distinct id: more rows than one batch of the walk (1024) in some runs.
  const all = Array.from({ length: copies }, (_, c) => texts.map((t, i) => t.replace(/^\{/, `{"id":${c * 1000 + i},`))).flat();
  const path = nested ? ['k', 'v'] : ['v'];
  usePathWalkWasm(wasm);
  try {
    // Some rows twice (a digest listed twice, read through its first position's text).
    const listed = all.length > 3 ? [...all, all[1], all[2]] : all;
    const { engine, digest } = setup(listed, PROJECT, packed);
    query(engine, { digest, sort_by: [{ field: path.join('.'), order: 'asc' }], limit: 1 });
    const cols = tableCaches(engine.store).sorts.get(engine.store.project(PROJECT)!.tables.get(digest)!)!.get(JSON.stringify(path))!;
    const want: SortColumns = { present: new Uint8Array(listed.length), tier: new Uint8Array(listed.length), float: new Float64Array(listed.length), text: listed.map(() => '') };
    listed.forEach((t, i) => setSortColumns(want, i, rowSortValue(parseExact(t), path)));
    // Texts not made yet are made from the rows, as a comparator makes them (textsFor).
    const pending = cols.textFrom!.filter((f) => f !== TEXT_MADE).length;
    textsFor(cols, Int32Array.from(listed, (_, i) => i));
    assert.ok(cols.textFrom!.every((f) => f === TEXT_MADE));
    assert.deepEqual(cols.text, want.text);
    // Prefix keys are kept for the rows without a float number reading.
    assert.deepEqual([...cols.prefix!].map((k, i) => (want.tier[i] === FLOAT_NUMBER ? 0 : k)), want.text.map((t, i) => (want.tier[i] === FLOAT_NUMBER ? 0 : textPrefixKey(t))));
    assert.deepEqual([...cols.present], [...want.present]);
    assert.deepEqual([...cols.tier], [...want.tier]);
    assert.deepEqual([...cols.float], [...want.float]);
    return pending;
  } finally {
    usePathWalkWasm(true);
  }
}

test('first sort of packed row texts: a row longer than a walk batch, non-ASCII runs and held rows read as parsed (both walks)', () => {
  const long = `{"v":"${'x'.repeat(400_000)}","w":1}`;
  const texts = ['{"v":"b"}', '{"v":"é"}', long, '{"v":"a"}', '{"k":1,"v":"😀"}', '{"v":2}', '{"v":"a\\u0041"}', long.replace('"w":1', '"w":2'), '{"v":"c"}'];
  for (const wasm of [false, true]) {
    for (const packed of ['all', 'some'] as const) {
      usePathWalkWasm(wasm);
      try {
        const { engine, digest } = setup(texts, PROJECT, packed);
        const got = indexes(query(engine, { digest, sort_by: [{ field: 'v', order: 'desc' }] }));
        assert.deepEqual(got, [5, 4, 1, 2, 7, 8, 0, 6, 3], `wasm ${wasm} ${packed}`);
      } finally {
        usePathWalkWasm(true);
      }
    }
  }
});
