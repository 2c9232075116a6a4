import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { isIndexPart, MISSING, readPath } from '../../query/calls/json-path.ts';
import { rowSortSteps, rowSortValue, rowSortValueOfText, setSortColumns, setSortColumnsOfText, type SortColumns } from '../../query/table/row-sort.ts';
import { exactPlain, parseExact } from './exact.ts';
import { LosslessNumber, parseLossless } from './lossless.ts';
import { jsonValueString, toFloat64OrNull } from '../ch/values.ts';
import { locatePathBytes, locatePathText, MemberSpans, pathSteps, readJsonSpanBytes, readJsonSpanText, readPlainStringSpan, readSpanFloat, SPAN_FLOAT_NULL, SPAN_FLOAT_UNDECIDED, SPAN_FLOAT_VALUE } from './path-extract.ts';

const encoder = new TextEncoder();

/** What the calls route read before: the part parsed whole, then walked (JSON_VALUE reading). */
function viaParse(text: string, parts: string[]): unknown {
  return readPath(parseExact(text), parts, 'json-value');
}

/** The byte walk, over `text` placed inside other bytes (offsets must be honoured). */
function viaBytes(text: string, parts: string[]): unknown {
  const steps = pathSteps(parts, isIndexPart);
  assert.ok(steps);
  const b = encoder.encode(`[9,"é",${text},"x"]`);
  const from = encoder.encode('[9,"é",').length;
  const to = b.length - encoder.encode(',"x"]').length;
  const out = new Int32Array(2);
  return locatePathBytes(b, from, to, steps, out) ? readJsonSpanBytes(b, out[0], out[1]) : MISSING;
}

function parseRow(text: string): unknown {
  try {
    return parseExact(text);
  } catch {
    return exactPlain(parseLossless(text));
  }
}

// JSON texts with the spellings a stored document may have: escapes (\u for every unit,
// astral characters as surrogate pairs), numbers spelled many ways (big integers among them),
// whitespace between tokens, repeated keys, nested arrays.
const ws = fc.constantFrom('', ' ', '\n  ', '\t', ' \r\n');
const names = ['a', 'b', 'c', '0', '1', '2', '01', '__proto__', 'é', '😀', 'a.b', '', 'k"q', 'x\\y', 'zz'];
/** Every UTF-16 unit as a \u escape. */
const uEscaped = (s: string) => '"' + Array.from({ length: s.length }, (_, i) => '\\u' + s.charCodeAt(i).toString(16).padStart(4, '0')).join('') + '"';
const spelledString = fc.tuple(fc.constantFrom(...names, 'plain', 'tab\there', 'nl\nx', '\u2028', '𝄞 clef', '12.5', ' 7 ', 'null', 'true', 'inf'), fc.boolean()).map(([s, esc]) => (esc ? uEscaped(s) : JSON.stringify(s)));
const numberLexeme = fc.constantFrom('0', '-0', '1', '1.0', '1.50', '1e3', '1E-2', '-12.5e+2', '12345678901234567890', '-9007199254740993', '9007199254740992', '0.1', '123456789012345678.5', '1234567890123456', '3.14159265358979323846');
const scalar = fc.oneof(numberLexeme, spelledString, fc.constantFrom('true', 'false', 'null'));
const { value } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }).map((items) => '[' + items.map(([a, v, b]) => a + v + b).join(',') + ']'),
    fc
      .array(fc.tuple(ws, fc.tuple(fc.constantFrom(...names), fc.boolean()), ws, tie('value'), ws), { maxLength: 5 })
      .map((members) => '{' + members.map(([a, [k, esc], b, v, c]) => a + (esc ? uEscaped(k) : JSON.stringify(k)) + b + ':' + c + v).join(',') + '}'),
  ),
}));
const document = fc.tuple(ws, value, ws).map(([a, v, b]) => a + v + b);
const path = fc.array(fc.constantFrom(...names, '3', '10'), { minLength: 1, maxLength: 4 });

test('the byte walk reads what parsing the whole part and walking it reads, on any document and path', () => {
  fc.assert(
    fc.property(document, path, (text, parts) => {
      const want = viaParse(text, parts);
      const got = viaBytes(text, parts);
      assert.ok(isDeepStrictEqual(got, want), `${text} @ ${parts.join('.')}: ${String(got)} vs ${String(want)}`);
    }),
    { numRuns: 3000 },
  );
});

test('the text walk gives the table sort the readings of the parsed row, on any document and path', () => {
  fc.assert(
    fc.property(document, path, (text, parts) => {
      const want = rowSortValue(parseRow(text), parts);
      const got = rowSortValueOfText(text, rowSortSteps(parts)!);
      assert.ok(isDeepStrictEqual(got, want), `${text} @ ${parts.join('.')}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
    }),
    { numRuns: 3000 },
  );
});

test('the text walk reads Python NaN/Infinity values and keeps integers beyond 2^53', () => {
  const text = '{"a": NaN, "b": [Infinity, -Infinity], "c": 12345678901234567890, "d": {"e": [1, {"f": "\\u00e9"}]}}';
  const at = (parts: string[]) => {
    const out = new Int32Array(2);
    return locatePathText(text, 0, text.length, pathSteps(parts, (p) => /^\d+$/.test(p))!, out) ? readJsonSpanText(text, out[0], out[1]) : MISSING;
  };
  assert.ok(Number.isNaN(at(['a'])));
  assert.equal(at(['b', '1']), -Infinity);
  assert.equal((at(['c']) as LosslessNumber).lexeme, '12345678901234567890');
  assert.equal(at(['d', 'e', '1', 'f']), 'é');
  assert.deepEqual(at(['d', 'e', '1']), { f: 'é' });
  assert.equal(at(['d', 'e', '2']), MISSING);
  assert.equal(at(['d', '1']), MISSING);
  assert.equal(at(['a', 'x']), MISSING);
  assert.deepEqual(rowSortValueOfText(text, rowSortSteps(['b', '0'])!), { present: false, text: 'Infinity', float: Infinity });
});

test('the byte walk: repeated keys read the last, an index on an object and a key on an array are missing, scalars end at their last byte', () => {
  const read = (text: string, parts: string[]) => viaBytes(text, parts);
  assert.equal(read('{"a":1,"a":{"b":2}}', ['a', 'b']), 2);
  assert.equal(read('{"a":{"b":2},"a":3}', ['a', 'b']), MISSING);
  assert.equal(read('{"0":5}', ['0']), MISSING);
  assert.equal(read('[5,6]', ['a']), MISSING);
  assert.equal(read('[ 5 , 6 ]', ['1']), 6);
  assert.equal(read('{"a" : -12.5e+2 }', ['a']), -1250);
  assert.ok(Object.is(read('{"a":-0}', ['a']), -0));
  assert.equal(read('{"a":"x\\"y"}', ['a']), 'x"y');
  assert.equal(read('{"\\u0061":"é😀"}', ['a']), 'é😀');
  assert.equal(read('{"a":[[1,[2,3]],4]}', ['a', '0', '1', '1']), 3);
  assert.deepEqual(read('{"a":[[1,[2,3]],4]}', ['a', '0']), [1, [2, 3]]);
  assert.equal(read('{"a":null}', ['a', 'b']), MISSING);
  assert.equal(read('{"a":null}', ['a']), null);
  assert.equal(read('"str"', ['a']), MISSING);
});

test('pathSteps: no walk for a lone surrogate or a negative index (the caller parses instead)', () => {
  assert.equal(pathSteps(['a', '\ud800'], isIndexPart), null);
  assert.equal(pathSteps(['a', '-1'], isIndexPart), null);
  assert.deepEqual(pathSteps(['a', '2'], isIndexPart)?.map((s) => [s.key, s.index]), [['a', -1], [null, 2]]);
  assert.deepEqual(pathSteps(['😀'], () => false)?.[0].keyBytes, encoder.encode('😀'));
});

/** The float reading through the text, as the path memo reads it without the bytes shortcut. */
function floatViaText(b: Uint8Array, start: number, end: number): number | null {
  const s = jsonValueString(readJsonSpanBytes(b, start, end));
  return toFloat64OrNull(s === 'null' ? '' : s);
}

/** A value placed inside other bytes, with its span. */
function placed(text: string): [Uint8Array, number, number] {
  const b = encoder.encode(`[9,"é",${text},"x"]`);
  const from = encoder.encode('[9,"é",').length;
  return [b, from, b.length - encoder.encode(',"x"]').length];
}

// Number spellings around the shortcut's limits: 15/16 significant digits, exponents ±22/23,
// leading and trailing zeros, -0, overflow and underflow.
const numberText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
  fc.tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9][0-9]{0,17})$/), fc.option(fc.stringMatching(/^[0-9]{1,18}$/)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 }))))
    .map(([neg, int, frac, exp]) => (neg ? '-' : '') + int + (frac === null ? '' : '.' + frac) + (exp === null ? '' : exp[0] + exp[1] + exp[2])),
  fc.constantFrom('-0', '0.0', '-0.0', '1e22', '1e23', '1e-22', '1e-23', '123456789012345', '1234567890123456', '0.000000000000000000001', '9007199254740993', '1e400', '-1e-400'),
);
const stringText = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('', ' 1', '1 ', 'inf', '-Infinity', 'nan', 'NaN', 'null', '.5', '+3', '1_000', 'gpt-4o', 'é1', 'true', 'e5').map((s) => JSON.stringify(s)),
  // Spelled with escapes: a tab, a no-break space, a digit.
  fc.constantFrom('"\\t2"', '"\\u00a05"', '"\\u0031"'),
);

test('readSpanFloat decides the float reading of the text where it decides at all', () => {
  const out = new Float64Array(1);
  let decided = 0;
  fc.assert(
    fc.property(fc.oneof(numberText, stringText, fc.constantFrom('true', 'false', 'null', '{}', '{"a":1}', '[1]', '[]')), (text) => {
      const [b, from, to] = placed(text);
      const want = floatViaText(b, from, to);
      const code = readSpanFloat(b, from, to, out);
      if (code === SPAN_FLOAT_UNDECIDED) return;
      decided++;
      if (code === SPAN_FLOAT_NULL) assert.equal(want, null, text);
      else {
        assert.equal(code, SPAN_FLOAT_VALUE);
        assert.ok(Object.is(out[0], want), `${text}: ${out[0]} vs ${want}`);
      }
    }),
    { numRuns: 5000 },
  );
  assert.ok(decided > 2000, `decided ${decided} of 5000`);
});

test('readSpanFloat: the cases it leaves to the text, and the ones it settles', () => {
  const out = new Float64Array(1);
  const code = (text: string) => readSpanFloat(...placed(text), out);
  for (const t of ['-0', '1234567890123456', '1e23', '1e-23', '" 1"', '"1"', '"inf"', '"Nan"', '"\\u0031"', '"é"', '"-1"', '".5"']) assert.equal(code(t), SPAN_FLOAT_UNDECIDED, t);
  for (const t of ['""', '"gpt-4o"', '"true"', 'true', 'false', 'null', '{"a":1}', '[1]']) assert.equal(code(t), SPAN_FLOAT_NULL, t);
  assert.equal(code('123456789012345'), SPAN_FLOAT_VALUE);
  assert.equal(out[0], 123456789012345);
  assert.equal(code('-1.25e-3'), SPAN_FLOAT_VALUE);
  assert.equal(out[0], -0.00125);
  assert.equal(code('0.30000000000000004'), SPAN_FLOAT_UNDECIDED); // 17 significant digits
});

test('readPlainStringSpan decodes plain strings (the same text twice for a repeated value) and leaves escapes to JSON.parse', () => {
  const values = ['gpt-4o-mini', 'é clef 𝄞', '', 'x'.repeat(100), 'gpt-4o-mini'];
  const got = values.map((v) => readPlainStringSpan(...placed(JSON.stringify(v))));
  assert.deepEqual(got, values);
  assert.equal(readPlainStringSpan(...placed('"tab\\there"')), undefined);
  assert.equal(readPlainStringSpan(...placed('"' + 'y'.repeat(60) + '\\n"')), undefined);
  // Two values in one hash slot are told apart by their bytes.
  for (let i = 0; i < 20000; i++) assert.equal(readPlainStringSpan(...placed(`"v${i}"`)), `v${i}`);
});

test('readPlainStringSpan: more distinct values than the cache holds, read over and over in any order, each read right', () => {
  // 3 × 2^16 values (the cache has 2^16 slots): slots fill, probes run out, values are
  // dropped and decoded again; lengths around the cached limit (48 bytes) and non-ASCII too.
  const alphabet = ['a', 'b', 'Z', ' ', '-', 'é', '𝄞', '0', '.'];
  const values: string[] = [];
  for (let i = 0; i < 3 * 65536; i++) {
    let v = i.toString(36);
    const extra = (i * 7919) % 52;
    for (let k = 0; v.length < extra; k++) v += alphabet[(i + k) % alphabet.length];
    values.push(v);
  }
  for (let round = 0; round < 2; round++) {
    for (let j = 0; j < values.length; j++) {
      const v = values[(j * 40503 + round * 977) % values.length];
      assert.equal(readPlainStringSpan(...placed(JSON.stringify(v))), v);
    }
  }
  assert.equal(readPlainStringSpan(...placed(JSON.stringify('x'.repeat(48)))), 'x'.repeat(48));
  assert.equal(readPlainStringSpan(...placed(JSON.stringify('x'.repeat(49)))), 'x'.repeat(49));
});

test('the table sort\'s byte reading writes the columns the text walk gives, on any document and path', () => {
  const cols = (): SortColumns => ({ present: new Uint8Array(1), tier: new Uint8Array(1), float: new Float64Array(1), text: [''] });
  const check = (text: string, parts: string[]) => {
    const steps = rowSortSteps(parts)!;
    const want = cols();
    setSortColumns(want, 0, rowSortValueOfText(text, steps));
    const got = cols();
    setSortColumnsOfText(got, 0, text, steps);
    assert.ok(isDeepStrictEqual(got, want), `${text} @ ${parts.join('.')}: ${JSON.stringify([...got.float, got.text])} vs ${JSON.stringify([...want.float, want.text])}`);
  };
  fc.assert(fc.property(document, path, check), { numRuns: 3000 });
  // A lone surrogate (and a real U+FFFD) in a key or a value; Python's NaN; a long row.
  check('{"a\uFFFD":2,"a\uD800":1}', ['a\uFFFD']);
  check('{"a":"x\uDC00y"}', ['a']);
  check('{"a":NaN,"b":[Infinity,-Infinity]}', ['b', '1']);
  check('{"a":"' + 'z'.repeat(70000) + '","b":{"c":-0}}', ['b', 'c']);
});

test('MemberSpans: one walk finds, for each of several keys, the span locatePathBytes finds for that key alone, on any document', () => {
  const keys = fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(fc.array(document, { minLength: 1, maxLength: 3 }), keys, fc.integer({ min: 0, max: 3 }), (texts, wanted, late) => {
      const members = new MemberSpans();
      // Some keys are added after a first walk: the walk is taken again with every key.
      const steps = wanted.map((k) => pathSteps([k], () => false)![0]);
      const index = new Map<number, number>();
      const b = encoder.encode(`[${texts.join(',')}]`);
      let from = 1;
      for (const text of texts) {
        const to = from + encoder.encode(text).length;
        steps.forEach((step, j) => {
          if (j >= late) index.set(j, members.add(step));
        });
        members.walk(b, from, to);
        steps.forEach((step, j) => {
          if (!index.has(j)) index.set(j, members.add(step));
          members.walk(b, from, to);
          const alone = new Int32Array(2);
          const found = locatePathBytes(b, from, to, [step], alone);
          const k = index.get(j)!;
          assert.equal(members.start[k] >= 0, found, `${text} @ ${wanted[j]}`);
          if (found) assert.deepEqual([members.start[k], members.end[k]], [alone[0], alone[1]], `${text} @ ${wanted[j]}`);
        });
        from = to + 1;
      }
    }),
    { numRuns: 2000 },
  );
});

test('MemberSpans: repeated and escaped keys (the last wins), a key added twice, and no members in a non-object', () => {
  const members = new MemberSpans();
  const [a, b] = [pathSteps(['a'], isIndexPart)![0], pathSteps(['é'], isIndexPart)![0]];
  assert.equal(members.add(a), 0);
  assert.equal(members.add(b), 1);
  assert.equal(members.add(pathSteps(['a'], isIndexPart)![0]), 0);
  const text = '{"a":1, "\u00e9" : "x" ,"a":{"a":2},"b":[3]}';
  const bytes = encoder.encode(text);
  members.walk(bytes, 0, bytes.length);
  assert.equal(new TextDecoder().decode(bytes.subarray(members.start[0], members.end[0])), '{"a":2}');
  assert.equal(new TextDecoder().decode(bytes.subarray(members.start[1], members.end[1])), '"x"');
  for (const other of ['[{"a":1}]', '"a"', 'null', ' 7 ']) {
    const o = encoder.encode(other);
    members.walk(o, 0, o.length);
    assert.deepEqual([members.start[0], members.start[1]], [-1, -1], other);
  }
  assert.throws(() => members.add(pathSteps(['0'], isIndexPart)![0]), /a key step/);
});
