/**
 * keepsSpellingNatively (semantics.md#writes-number-spelling): when it says yes, the native
 * parser and writer give exactly the text the exact path stores; a property test over texts
 * spelled the many ways a client may spell numbers, keys and strings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepsSpellingNatively } from './native-safe.ts';
import { parseLossless } from './lossless.ts';
import { storedRowText } from './stored-text.ts';

test('what the native path may read, and what it leaves to the exact one', () => {
  const yes = ['{"a":1,"b":-12,"c":0.7,"d":-2.5e-3,"e":"1.0 NaN \\"1.0\\"","f":[true,null,123456789012345]}', '[]', '"x"', '{"a1":0.0001}'];
  const no = [
    '{"a":1.0}', // JS writes 1
    '{"a":1e2}', // a whole number
    '{"a":1e-5}', // Python writes 1e-05
    '{"a":1e16}',
    '{"a":-0}',
    '{"a":1234567890123456}', // 16 digits
    '{"a":NaN}',
    '{"a":-Infinity}',
    '{"1":2}', // JS moves index-like keys first
    '{"a":{"0":1}}',
    '{"\\u0031":1}', // a key with escapes may decode to an index
    '{"a":"unterminated',
  ];
  for (const text of yes) assert.equal(keepsSpellingNatively(text), true, text);
  for (const text of no) assert.equal(keepsSpellingNatively(text), false, text);
});

/** A small seeded generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NUMBERS = ['0', '-0', '1', '-7', '1.0', '2.50', '0.7', '-0.001', '0.0001', '0.00001', '1e2', '1E-3', '2.5e-3', '123456789012345', '1234567890123456', '12345678901234567890', '1e400', '3.14159', '1e15', '1.5e15', '1.5e16', 'NaN', 'Infinity'];
const KEYS = ['a', 'b', '1', '01', '10', 'x y', '\\u0031', 'é', 'a\\"b', '-1', '1.5'];
const STRINGS = ['', 'hello', '1.0', 'a\\"b', 'tab\\t', '\\\\', 'NaN', 'é\\u00e9', '{\\"k\\": 1.0}'];

function value(r: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const k = r();
  if (depth > 3 || k < 0.35) return pick(NUMBERS);
  if (k < 0.55) return `"${pick(STRINGS)}"`;
  if (k < 0.6) return pick(['true', 'false', 'null']);
  if (k < 0.8) return `[${Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1)).join(pick([',', ', ']))}]`;
  const n = Math.floor(r() * 4);
  return `{${Array.from({ length: n }, () => `"${pick(KEYS)}"${pick([':', ': '])}${value(r, depth + 1)}`).join(',')}}`;
}

test('whenever it says yes, JSON.stringify(JSON.parse(text)) is the text the exact path stores', () => {
  const r = rng(24);
  let native = 0;
  for (let i = 0; i < 20000; i++) {
    const text = value(r, 0);
    if (!keepsSpellingNatively(text)) continue;
    native++;
    assert.equal(JSON.stringify(JSON.parse(text)), storedRowText(parseLossless(text)), text);
  }
  assert.ok(native > 2000, `${native} texts took the native path`);
});

test('parseSpelled: where it takes the native path, it writes back what the exact path would', async () => {
  const { spelledPlain, stringifyExact } = await import('./exact.ts');
  const r = rng(7);
  let native = 0;
  for (let i = 0; i < 5000; i++) {
    const text = value(r, 0);
    let stored: string;
    try {
      stored = storedRowText(parseLossless(text));
    } catch {
      continue; // not JSON
    }
    if (!keepsSpellingNatively(stored)) continue;
    native++;
    assert.equal(stringifyExact(JSON.parse(stored)), stringifyExact(spelledPlain(parseLossless(stored))), stored);
  }
  assert.ok(native > 500, `${native} stored texts took the native path`);
});
