/**
 * Matching a TargetResponse against a case's expectation, with a compact diff on failure.
 *
 * Value rules (shared by every expectation kind):
 * - numbers compare numerically (`150` equals `150.0`, which JSON parsing makes the same
 *   value anyway); non-integers may differ by a relative 1e-9, because percentiles are
 *   specified as a formula (numpy "linear") whose last bit depends on evaluation order;
 * - two strings that both read as ISO 8601 date-times compare as instants at microsecond
 *   precision (`2024-05-01T12:00:00Z` equals `2024-05-01T12:00:00.000000+00:00`);
 * - arrays compare element-wise and must have the same length;
 * - objects: in `subset` mode the expected object names the keys it checks (each must be
 *   present, `null` included, since every field is on every line; semantics.md#wire-all-fields); in
 *   `exact` mode the key sets must be equal too. Both apply at every depth.
 *
 * A diff names the first difference: the line index (for streams), the key path, expected
 * vs got.
 */
import { dumpCompact, LosslessObject, parseLossless, type LosslessValue } from '../core/json/lossless.ts';
import type { Expect, HeaderExpectation } from './case.ts';
import type { TargetResponse } from './target.ts';

export type MatchMode = 'subset' | 'exact';

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** µs since epoch of an ISO 8601 date-time with a time part (naive = UTC), or undefined. */
export function isoInstantMicros(text: string): bigint | undefined {
  const m = ISO_DATETIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', tz] = m;
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  if (Number.isNaN(ms)) return undefined;
  let offsetMinutes = 0;
  if (tz && tz !== 'Z' && tz !== 'z') {
    const digits = tz.slice(1).replace(':', '');
    offsetMinutes = (tz[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  const micros = BigInt((frac + '000000').slice(0, 6));
  return BigInt(ms) * 1000n + micros - BigInt(offsetMinutes) * 60_000_000n;
}

const RELATIVE_TOLERANCE = 1e-9;

function numbersEqual(a: number, b: number): boolean {
  if (a === b) return true;
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (Number.isInteger(a) && Number.isInteger(b)) return false;
  return Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Short JSON rendering for diffs. */
export function show(v: unknown, max = 160): string {
  if (v === undefined) return '<missing>';
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function keyPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Compares one expected value with what came back. Returns undefined when they match, else
 * `at <path>: expected <x>, got <y>`.
 */
export function compareValue(expected: unknown, got: unknown, mode: MatchMode, path = '$'): string | undefined {
  const mismatch = (detail?: string) => `at ${path}: ${detail ?? `expected ${show(expected)}, got ${show(got)}`}`;
  if (typeof expected === 'number') {
    return typeof got === 'number' && numbersEqual(expected, got) ? undefined : mismatch();
  }
  if (typeof expected === 'string') {
    if (typeof got !== 'string') return mismatch();
    if (expected === got) return undefined;
    const e = isoInstantMicros(expected);
    const g = e === undefined ? undefined : isoInstantMicros(got);
    return e !== undefined && e === g ? undefined : mismatch();
  }
  if (expected === null || typeof expected === 'boolean') {
    return expected === got ? undefined : mismatch();
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(got)) return mismatch();
    if (expected.length !== got.length) {
      return mismatch(`expected ${expected.length} elements, got ${got.length}: expected ${show(expected)}, got ${show(got)}`);
    }
    for (let i = 0; i < expected.length; i++) {
      const d = compareValue(expected[i], got[i], mode, keyPath(path, i));
      if (d) return d;
    }
    return undefined;
  }
  if (isObject(expected)) {
    if (!isObject(got)) return mismatch();
    for (const key of Object.keys(expected)) {
      const sub = keyPath(path, key);
      if (!Object.prototype.hasOwnProperty.call(got, key)) {
        return `at ${sub}: expected ${show(expected[key])}, got <missing>`;
      }
      const d = compareValue(expected[key], got[key], mode, sub);
      if (d) return d;
    }
    if (mode === 'exact') {
      for (const key of Object.keys(got)) {
        if (!Object.prototype.hasOwnProperty.call(expected, key)) {
          return `at ${keyPath(path, key)}: unexpected key (got ${show(got[key])})`;
        }
      }
    }
    return undefined;
  }
  return mismatch(`expected value of unsupported type ${typeof expected}`);
}

/**
 * A perfect matching between expected and got items (sizes equal), found with augmenting
 * paths so subset patterns that could match several lines are still assigned correctly.
 * Returns the first expected index left unmatched, or undefined when all match.
 */
function unmatchedIndex(
  expected: unknown[],
  got: unknown[],
  mode: MatchMode,
): { missing: number; taken: ReadonlySet<number> } | undefined {
  const fits = expected.map((e) => got.map((g) => compareValue(e, g, mode) === undefined));
  const owner: Array<number | undefined> = new Array(got.length).fill(undefined);
  const assign = (e: number, seen: boolean[]): boolean => {
    for (let g = 0; g < got.length; g++) {
      if (!fits[e][g] || seen[g]) continue;
      seen[g] = true;
      const current = owner[g];
      if (current === undefined || assign(current, seen)) {
        owner[g] = e;
        return true;
      }
    }
    return false;
  };
  for (let e = 0; e < expected.length; e++) {
    if (!assign(e, new Array(got.length).fill(false))) {
      const taken = new Set<number>();
      owner.forEach((o, g) => o !== undefined && taken.add(g));
      return { missing: e, taken };
    }
  }
  return undefined;
}

/** Diff of an unordered group: which expected item found no partner, and its nearest miss. */
function compareUnordered(expected: unknown[], got: unknown[], mode: MatchMode, firstLine: number): string | undefined {
  const unmatched = unmatchedIndex(expected, got, mode);
  if (unmatched === undefined) return undefined;
  const { missing, taken } = unmatched;
  const target = expected[missing];
  // The nearest miss among lines no other expected line took: the one whose first
  // difference is deepest (most shared structure).
  let best: { line: number; diff: string; depth: number } | undefined;
  for (let g = 0; g < got.length; g++) {
    const d = compareValue(target, got[g], mode);
    if (d === undefined || taken.has(g)) continue;
    const depth = d.slice(3, d.indexOf(': ')).length;
    if (!best || depth > best.depth) best = { line: firstLine + g, diff: d, depth };
  }
  const near = best ? `; nearest got line ${best.line}: ${best.diff}` : '';
  return `expected line ${firstLine + missing} ${show(target, 100)} matches no got line${near}`;
}

function compareLines(expected: unknown[], got: unknown[], mode: MatchMode): string | undefined {
  const n = Math.min(expected.length, got.length);
  for (let i = 0; i < n; i++) {
    const d = compareValue(expected[i], got[i], mode);
    if (d) {
      const count = expected.length === got.length ? '' : `expected ${expected.length} lines, got ${got.length}; `;
      return `${count}line ${i}: ${d}`;
    }
  }
  if (expected.length !== got.length) {
    const extra = got.length > expected.length ? `; first extra line ${n}: ${show(got[n])}` : `; first missing line ${n}: ${show(expected[n])}`;
    return `expected ${expected.length} lines, got ${got.length}${extra}`;
  }
  return undefined;
}

function compareTies(groups: unknown[][], got: unknown[], mode: MatchMode): string | undefined {
  const total = groups.reduce((sum, g) => sum + g.length, 0);
  if (total !== got.length) return `expected ${total} lines (in ${groups.length} tie groups), got ${got.length}`;
  let start = 0;
  for (let gi = 0; gi < groups.length; gi++) {
    const group = groups[gi];
    const slice = got.slice(start, start + group.length);
    const d = compareUnordered(group, slice, mode, start);
    if (d) return `tie group ${gi} (lines ${start}..${start + group.length - 1}): ${d}`;
    start += group.length;
  }
  return undefined;
}

function compareHeaders(expected: Record<string, HeaderExpectation>, got: Record<string, string>): string | undefined {
  for (const [name, want] of Object.entries(expected)) {
    const value = got[name.toLowerCase()];
    if (value === undefined) return `header ${name}: missing`;
    if (want === true) continue;
    if (typeof want === 'string' ? value !== want : !value.startsWith(want.prefix)) {
      return `header ${name}: expected ${typeof want === 'string' ? show(want) : `a value starting with ${show(want.prefix)}`}, got ${show(value)}`;
    }
  }
  return undefined;
}

/** One step of a `json_texts` key path: `.key`, `[index]` or `["key"]`. */
const PATH_STEP = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** The steps of a key path (`$[0].inputs["a b"]`), or undefined when it is not one. */
export function keyPathSteps(path: string): Array<string | number> | undefined {
  if (!path.startsWith('$')) return undefined;
  const steps: Array<string | number> = [];
  PATH_STEP.lastIndex = 1;
  while (PATH_STEP.lastIndex < path.length) {
    const m = PATH_STEP.exec(path);
    if (m === null) return undefined;
    steps.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]) as string)));
  }
  return steps;
}

/**
 * `json_texts`: the body is read again from its text, keeping number lexemes and key order, and
 * the value at each path is written as compact JSON, so `1.0` and `1` (equal to compareValue)
 * differ here. A stream's lines are the elements of an array.
 */
function compareJsonTexts(expected: Record<string, string>, res: TargetResponse): string | undefined {
  if (res.raw === undefined) return `json_texts: expected a JSON or JSON Lines body, got ${bodyOf(res)}`;
  let doc: LosslessValue;
  try {
    doc = res.lines !== undefined ? res.raw.split('\n').filter((l) => l.trim() !== '').map((l) => parseLossless(l)) : parseLossless(res.raw);
  } catch (e) {
    return `json_texts: the body does not parse as JSON (${(e as Error).message})`;
  }
  for (const [path, want] of Object.entries(expected)) {
    const steps = keyPathSteps(path);
    if (steps === undefined) return `json_texts: ${show(path)} is not a key path`;
    let cur: LosslessValue | undefined = doc;
    for (const step of steps) {
      if (typeof step === 'number') cur = Array.isArray(cur) ? cur[step] : undefined;
      else cur = cur instanceof LosslessObject ? cur.get(step) : undefined;
      if (cur === undefined) return `json_texts at ${path}: expected the text ${show(want)}, got <missing>`;
    }
    const got = dumpCompact(cur);
    if (got !== want) return `json_texts at ${path}: expected the text ${show(want)}, got ${show(got)}`;
  }
  return undefined;
}

function bodyOf(res: TargetResponse): string {
  if (res.json !== undefined) return show(res.json, 300);
  if (res.lines !== undefined) return `${res.lines.length} JSON lines, first ${show(res.lines[0], 200)}`;
  return res.text === undefined ? '<empty>' : show(res.text, 300);
}

/**
 * Compares a response with an expectation. Returns undefined on a match, else a one-line
 * diff (with the target's note appended, when it gave one).
 */
export function compareResponse(expect: Expect, res: TargetResponse): string | undefined {
  const diff = compareResponseInner(expect, res);
  return diff && res.note ? `${diff} [${res.note}]` : diff;
}

function compareResponseInner(expect: Expect, res: TargetResponse): string | undefined {
  const diff = compareValues(expect, res);
  if (diff !== undefined || !('json_texts' in expect) || expect.json_texts === undefined) return diff;
  return compareJsonTexts(expect.json_texts, res);
}

function compareValues(expect: Expect, res: TargetResponse): string | undefined {
  const wantStatus = expect.status ?? 200;
  if (res.status !== wantStatus) return `status: expected ${wantStatus}, got ${res.status}; body: ${bodyOf(res)}`;

  if (expect.headers) {
    const d = compareHeaders(expect.headers, res.headers);
    if (d) return d;
  }

  if ('body' in expect || 'body_keys' in expect) {
    const err = expect as { body?: unknown; body_keys?: string[] };
    if (err.body !== undefined) {
      if (res.json === undefined) return `body: expected JSON ${show(err.body)}, got ${bodyOf(res)}`;
      const d = compareValue(err.body, res.json, 'exact');
      if (d) return `body ${d}`;
    }
    if (err.body_keys !== undefined) {
      if (!isObject(res.json)) return `body: expected an object with keys ${show(err.body_keys)}, got ${bodyOf(res)}`;
      const want = [...err.body_keys].sort();
      const got = Object.keys(res.json).sort();
      if (want.join('\u0000') !== got.join('\u0000')) return `body keys: expected ${show(want)}, got ${show(got)}`;
    }
    return undefined;
  }

  const ok = expect as { lines?: unknown[]; unordered?: unknown[]; ties?: unknown[][]; json?: unknown; text?: string; match?: MatchMode };
  const mode = ok.match ?? 'subset';
  const streamExpected = ok.lines ?? ok.unordered ?? ok.ties;
  if (streamExpected !== undefined) {
    if (res.lines === undefined) return `expected a JSON Lines stream, got ${bodyOf(res)}`;
    if (ok.lines) return compareLines(ok.lines, res.lines, mode);
    if (ok.unordered) {
      if (ok.unordered.length !== res.lines.length) {
        return `expected ${ok.unordered.length} lines (any order), got ${res.lines.length}`;
      }
      return compareUnordered(ok.unordered, res.lines, mode, 0);
    }
    return compareTies(ok.ties ?? [], res.lines, mode);
  }
  if (ok.text !== undefined) {
    return res.text === ok.text ? undefined : `body: expected the text ${show(ok.text)}, got ${bodyOf(res)}`;
  }
  if ('json' in ok) {
    if (res.json === undefined) return `expected a JSON body ${show(ok.json)}, got ${bodyOf(res)}`;
    const d = compareValue(ok.json, res.json, mode);
    return d ? `json ${d}` : undefined;
  }
  return undefined;
}
