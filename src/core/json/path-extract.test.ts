import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { isIndexPart, MISSING, readPath } from '../../query/calls/json-path.ts';
import { rowSortSteps, rowSortValue, rowSortValueOfText } from '../../query/table/row-sort.ts';
import { exactPlain, parseExact } from './exact.ts';
import { LosslessNumber, parseLossless } from './lossless.ts';
import { locatePathBytes, locatePathText, pathSteps, readJsonSpanBytes, readJsonSpanText } from './path-extract.ts';

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
