/**
 * Expr → row predicate, compiled once per request into closures (semantics.md#calls-expr).
 *
 * Every `$getField` is resolved while compiling, so an unknown field raises its 422 before any
 * row is read; empty `$and`/`$or` (400) and dict/list literals (400) are raised in the same walk,
 * in the order Weave's builder meets them (left to right, depth first).
 *
 * Typing follows ClickHouse as Weave's in-memory mirror reproduces it (`_compile_calls_query`,
 * `_ch_compare`): each compiled node has a static kind (bool, number, string, datetime, array,
 * null) and comparisons pick one specialised closure at compile time:
 *  - dynamic JSON fields read as strings ('' when missing, semantics.md#calls-json-read) unless
 *    compared with an int, float or bool literal, which casts them (toInt64OrNull / toFloat64OrNull
 *    / bool) (semantics.md#calls-expr-compare);
 *  - literals compared with a datetime column are read as unix seconds or ISO text
 *    (semantics.md#calls-expr-compare);
 *  - bools compare as 0/1; a number against a non-number is NULL; other mismatched kinds are
 *    never equal and have no order (NULL);
 *  - NULL propagates through comparisons; `$and`/`$or`/`$not` use Kleene (SQL) logic, as
 *    ClickHouse evaluates them: NULL AND false = false, NULL OR true = true, NOT NULL = NULL
 *    (semantics.md#calls-expr-logic; the in-memory mirror instead folds NULL to false inside
 *    `$and`/`$or`);
 *  - a row passes only when the whole expression is strictly true.
 */
import { formatMicros, parseIsoMicros } from '../../../core/datetime.ts';
import { invalidRequest, type ErrorPath } from '../../../core/errors.ts';
import {
  compareStrings,
  containsSubstring,
  hasToken,
  isValidToken,
  pyFloatReprPython,
  pyNumberString,
  pyStrip,
  pyStrRepr,
  toBoolCastOrNull,
  toFloat64OrNull,
  toInt64OrNull,
  toUInt8OrNull,
} from '../../../core/ch/values.ts';
import type { CastTo, ComparisonOp, ContainsExpr, Expr, InExpr, LiteralValue, SubstringOp } from './ast.ts';
import { aliasOf } from './operators.ts';
import type { FieldAccessor, FieldResolver, ValueCodes } from './fields.ts';

type JsonAccessor = Extract<FieldAccessor, { kind: 'json' }>;
type Getter<T> = (row: number) => T | null;

/** A compiled operand. `constant` marks literals (value known at compile time). */
type Node =
  | { kind: 'bool'; get: Getter<boolean>; constant?: { value: boolean | null } }
  // Numbers; integers beyond 2^53 are exact bigints (ch/values.ts ExactInt).
  | { kind: 'number'; get: Getter<number | bigint>; constant?: { value: number | bigint | null } }
  | { kind: 'string'; get: Getter<string>; constant?: { value: string | null }; json?: JsonAccessor; codes?: ValueCodes }
  | { kind: 'datetime'; get: Getter<number>; constant?: { value: number | null } }
  | { kind: 'array'; get: Getter<readonly string[]>; constant?: undefined }
  | { kind: 'null'; get: Getter<never>; constant: { value: null } };

type BoolNode = Extract<Node, { kind: 'bool' }>;

const NULL_NODE: Node = { kind: 'null', get: () => null, constant: { value: null } };
const constBool = (value: boolean | null): BoolNode => ({ kind: 'bool', get: () => value, constant: { value } });

// ---------------------------------------------------------------------------------------------
// Literals.

/** Python's repr of a literal, as Weave's "Unknown value type: {literal}" prints it. */
function literalRepr(v: LiteralValue): string {
  switch (v.type) {
    case 'string':
      return pyStrRepr(v.value);
    case 'int':
      return pyNumberString(v.value);
    case 'float':
      return pyFloatReprPython(v.value);
    case 'bool':
      return v.value ? 'True' : 'False';
    case 'null':
      return 'None';
    case 'list':
      return `[${v.items.map((i) => `LiteralOperation(literal_=${literalRepr(i)})`).join(', ')}]`;
    case 'dict':
      return `{${v.entries.map(([k, i]) => `${pyStrRepr(k)}: LiteralOperation(literal_=${literalRepr(i)})`).join(', ')}}`;
  }
}

/** Python datetime range (years 1..9999) in µs: a literal outside it is not a time. */
const MIN_US = -62135596800_000_000;
const MAX_US = 253402300799_999_999;

/**
 * A literal compared with a datetime column (semantics.md#calls-expr-compare,
 * `_maybe_datetime_literal`): numbers are unix seconds, strings ISO 8601 (naive = UTC, trailing Z
 * allowed); anything else, or text that does not parse, stays as it is (null here).
 */
export function datetimeLiteralMicros(v: LiteralValue): number | null {
  if (v.type === 'int' || v.type === 'float') {
    const x = Number(v.value);
    if (!Number.isFinite(x)) return null;
    // datetime.fromtimestamp: whole seconds plus the fraction rounded half-even to µs.
    const seconds = Math.trunc(x);
    const fracUs = (x - seconds) * 1e6;
    let us = Math.round(fracUs);
    if (Math.abs(fracUs % 1) === 0.5 && us % 2 !== 0) us -= 1; // JS rounds ties up; take the even one
    const total = seconds * 1e6 + us;
    return total >= MIN_US && total <= MAX_US ? total : null;
  }
  if (v.type === 'string') {
    const s = pyStrip(v.value);
    if (s === '') return null;
    const us = parseIsoMicros(s);
    return Number.isNaN(us) || us < MIN_US || us > MAX_US ? null : us;
  }
  return null;
}

/** The casts a literal can impose on a JSON field. */
type InferredCast = 'int' | 'double' | 'bool';

/**
 * `infer_literal_filter_cast` (semantics.md#calls-expr-compare): the cast a JSON field takes
 * against this operand.
 */
function inferLiteralCast(e: Expr): InferredCast | null {
  if (e.op !== 'literal') return null;
  switch (e.value.type) {
    case 'bool':
      return 'bool';
    case 'int':
      return 'int';
    case 'float':
      return 'double';
    default:
      return null;
  }
}

/**
 * `infer_shared_literal_filter_cast` (semantics.md#calls-expr-in): one cast for a list of literals,
 * int+double → double.
 */
function inferSharedCast(options: readonly Expr[]): InferredCast | null {
  const casts = new Set<InferredCast>();
  for (const o of options) {
    const c = inferLiteralCast(o);
    if (c === null) return null;
    casts.add(c);
  }
  if (casts.size === 2 && casts.has('int') && casts.has('double')) return 'double';
  return casts.size === 1 ? [...casts][0] : null;
}

// ---------------------------------------------------------------------------------------------
// Stringification and truthiness.

/** Python `str(datetime)` of an aware UTC datetime: `2024-01-01 00:00:00[.ffffff]+00:00`. */
function pyDatetimeString(us: number): string {
  const iso = formatMicros(us);
  return iso.slice(0, 10) + ' ' + iso.slice(11, -1) + '+00:00';
}

/**
 * The text a `$convert` works on (`_ch_to_string`): strings as they are, bools 'true'/'false',
 * numbers in Python's spelling, datetimes and arrays as Python prints them; NULL stays NULL.
 */
function stringGetter(node: Node): Getter<string> {
  switch (node.kind) {
    case 'string':
      return node.get;
    case 'number':
      return mapNullable(node.get, pyNumberString);
    case 'bool':
      return mapNullable(node.get, (v) => (v ? 'true' : 'false'));
    case 'datetime':
      return mapNullable(node.get, pyDatetimeString);
    case 'array':
      return mapNullable(node.get, (v) => `[${v.map(pyStrRepr).join(', ')}]`);
    case 'null':
      return () => null;
  }
}

/** A getter applying `f` to non-NULL values; NULL stays NULL. */
function mapNullable<T, U>(g: Getter<T>, f: (v: T) => U): Getter<U> {
  return (row) => {
    const v = g(row);
    return v === null ? null : f(v);
  };
}

/**
 * A node used as a condition (`$and`/`$or`/`$not` operands and the root): bools as they are,
 * numbers non-zero, strings non-empty (Python truthiness, as the mirror applies it), datetimes
 * true, arrays non-empty; NULL stays NULL.
 */
function truthGetter(node: Node): Getter<boolean> {
  switch (node.kind) {
    case 'bool':
      return node.get;
    case 'number':
      return mapNullable(node.get, (v) => v !== 0);
    case 'string':
      return mapNullable(node.get, (v) => v !== '');
    case 'datetime':
      return mapNullable(node.get, () => true);
    case 'array':
      return mapNullable(node.get, (v) => v.length > 0);
    case 'null':
      return () => null;
  }
}

// ---------------------------------------------------------------------------------------------
// Comparisons (`_ch_compare`).

type Cmp<T> = (a: T, b: T) => boolean;

const NUMBER_CMP: Record<ComparisonOp, Cmp<number | bigint>> = {
  // `==`, not `===`: a float equal to a bigint integer is equal (both are exact values).
  eq: (a, b) => a == b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};
const STRING_CMP: Record<ComparisonOp, Cmp<string>> = {
  eq: (a, b) => a === b,
  gt: (a, b) => compareStrings(a, b) > 0,
  gte: (a, b) => compareStrings(a, b) >= 0,
  lt: (a, b) => compareStrings(a, b) < 0,
  lte: (a, b) => compareStrings(a, b) <= 0,
};
/** Python list comparison: element-wise, then by length. */
function compareArrays(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
const ARRAY_CMP: Record<ComparisonOp, Cmp<readonly string[]>> = {
  eq: (a, b) => compareArrays(a, b) === 0,
  gt: (a, b) => compareArrays(a, b) > 0,
  gte: (a, b) => compareArrays(a, b) >= 0,
  lt: (a, b) => compareArrays(a, b) < 0,
  lte: (a, b) => compareArrays(a, b) <= 0,
};

/**
 * The test of each 'substring' operation on two strings (semantics.md#calls-expr-contains): a
 * `$containsToken` substr that is not a single token matches nothing (NULL), as hasTokenOrNull.
 */
const SUBSTRING_TESTS: Record<SubstringOp, (haystack: string, needle: string, caseInsensitive: boolean) => boolean | null> = {
  contains: containsSubstring,
  containsToken: (h, n, ci) => (isValidToken(n) ? hasToken(h, n, ci) : null),
};

/** The comparison class of a kind: bools compare as numbers (0/1). */
type CompareKind = 'number' | 'string' | 'datetime' | 'array' | 'null';
const compareKind = (n: Node): CompareKind => (n.kind === 'bool' ? 'number' : n.kind);

/** A getter in the comparison class's value type (bools as 0/1). */
function comparableGetter(n: Node): Getter<unknown> {
  if (n.kind !== 'bool') return n.get;
  const g = n.get;
  return (row) => {
    const v = g(row);
    return v === null ? null : v ? 1 : 0;
  };
}

function constantOf(n: Node): { value: unknown } | undefined {
  if (!n.constant) return undefined;
  const v = n.constant.value;
  return { value: n.kind === 'bool' && v !== null ? (v ? 1 : 0) : v };
}

/** `left <op> right` with NULL propagation; one closure chosen by the operand kinds. */
function compareNodes(op: ComparisonOp, left: Node, right: Node): BoolNode {
  const lk = compareKind(left);
  const rk = compareKind(right);
  if (lk === 'null' || rk === 'null') return constBool(null);
  const lg = comparableGetter(left);
  const rg = comparableGetter(right);
  if (lk !== rk) {
    // A number against anything else is NULL; other mismatches are unequal and unordered.
    if (lk === 'number' || rk === 'number' || op !== 'eq') return constBool(null);
    return { kind: 'bool', get: (row) => (lg(row) === null || rg(row) === null ? null : false) };
  }
  const cmp = (lk === 'string' ? STRING_CMP[op] : lk === 'array' ? ARRAY_CMP[op] : NUMBER_CMP[op]) as Cmp<unknown>;
  const rc = constantOf(right);
  const lc = constantOf(left);
  if (rc) {
    const c = rc.value;
    if (c === null) return constBool(null);
    if (lc) return constBool(lc.value === null ? null : cmp(lc.value, c));
    return {
      kind: 'bool',
      get: (row) => {
        const a = lg(row);
        return a === null ? null : cmp(a, c);
      },
    };
  }
  if (lc) {
    const c = lc.value;
    if (c === null) return constBool(null);
    return {
      kind: 'bool',
      get: (row) => {
        const b = rg(row);
        return b === null ? null : cmp(c, b);
      },
    };
  }
  return {
    kind: 'bool',
    get: (row) => {
      const a = lg(row);
      if (a === null) return null;
      const b = rg(row);
      return b === null ? null : cmp(a, b);
    },
  };
}

/** Whether evaluating `e` may read a field the resolver calls costly (a dynamic JSON field). */
function readsJson(e: Expr, costly: (path: string) => boolean): boolean {
  switch (e.op) {
    case 'literal':
      return false;
    case 'getField':
      return costly(e.path);
    case 'convert':
      return readsJson(e.input, costly);
    case 'and':
    case 'or':
      return e.args.some((a) => readsJson(a, costly));
    case 'not':
      return readsJson(e.arg, costly);
    case 'in':
      return readsJson(e.left, costly) || e.options.some((o) => readsJson(o, costly));
    default:
      if ('substr' in e) return readsJson(e.input, costly) || readsJson(e.substr, costly);
      return readsJson(e.left, costly) || readsJson(e.right, costly);
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluating once per distinct value.

/**
 * `test` depends only on `field`'s value (the other operand is a constant). When the field is
 * an interned column, the result is computed once per distinct value and then read from a
 * small table by the row's code: a scan of a million calls touches a handful of strings.
 */
function perDistinctValue(field: Node, other: Node, test: BoolNode): BoolNode {
  if (field.kind !== 'string' || !field.codes || !other.constant) return test;
  const { code } = field.codes;
  const known = new Int8Array(field.codes.bound); // 0 unknown, 1 false, 2 true, 3 NULL
  const g = test.get;
  return {
    kind: 'bool',
    get: (row) => {
      const c = code(row);
      if (c < 0 || c >= known.length) return g(row);
      let k = known[c];
      if (k === 0) {
        const v = g(row);
        known[c] = k = v === null ? 3 : v ? 2 : 1;
      }
      return k === 3 ? null : k === 2;
    },
  };
}

/**
 * `$eq` of a JSON field's text with a string literal, read by the field's accessor (mostly from
 * the stored bytes, no string made per row), or null when the operands are not that. The text is
 * never NULL, so neither is the result.
 */
function textEqualsLiteral(field: Node, literal: Node): BoolNode | null {
  if (field.kind !== 'string' || field.json?.textEquals === undefined || literal.kind !== 'string' || !literal.constant) return null;
  const value = literal.constant.value;
  if (value === null) return null;
  return { kind: 'bool', get: field.json.textEquals(value) };
}

// ---------------------------------------------------------------------------------------------
// The compiler.

class Compiler {
  private readonly costly: (path: string) => boolean;

  constructor(private readonly resolver: FieldResolver) {
    this.costly = resolver.readsJson ? (path) => resolver.readsJson!(path) : () => false;
  }

  /** A node of any kind (`compile_operand`). */
  operand(e: Expr, loc: ErrorPath): Node {
    switch (e.op) {
      case 'literal':
        return this.literal(e.value, [...loc, '$literal']);
      case 'getField':
        return this.field(e.path, [...loc, '$getField']);
      case 'convert':
        return this.convert(this.operand(e.input, [...loc, '$convert', 'input']), e.to);
      case 'and':
      case 'or':
        return this.logical(e.op, e.args, loc);
      case 'not': {
        const t = truthGetter(this.operand(e.arg, [...loc, '$not', 0]));
        return {
          kind: 'bool',
          get: (row) => {
            const v = t(row);
            return v === null ? null : !v;
          },
        };
      }
      case 'in':
        return this.in(e, [...loc, '$in']);
      default:
        // The 'substring' and 'binary' shapes of operators.ts.
        if ('substr' in e) return this.contains(e, [...loc, aliasOf(e.op)]);
        return this.comparison(e.op, e.left, e.right, [...loc, aliasOf(e.op)]);
    }
  }

  /**
   * semantics.md#calls-expr-literals: only scalar literals are usable; dicts and lists are a 400.
   */
  private literal(v: LiteralValue, loc: ErrorPath): Node {
    switch (v.type) {
      case 'string':
        return { kind: 'string', get: () => v.value, constant: { value: v.value } };
      case 'int':
      case 'float':
        return { kind: 'number', get: () => v.value, constant: { value: v.value } };
      case 'bool':
        return constBool(v.value);
      case 'null':
        return NULL_NODE;
      case 'list':
      case 'dict':
        throw invalidRequest('TQ_LITERAL_TYPE', { type: literalRepr(v) }, loc);
    }
  }

  /**
   * semantics.md#calls-expr-fields: resolve now, so that an unknown field fails before any row is
   * read.
   */
  private field(path: string, loc: ErrorPath): Node {
    const acc = this.resolver.resolve(path, loc);
    switch (acc.kind) {
      case 'string':
        return { kind: 'string', get: acc.get, codes: acc.codes };
      case 'number':
        return { kind: 'number', get: acc.get };
      case 'datetime':
        return { kind: 'datetime', get: acc.get };
      case 'array':
        return { kind: 'array', get: acc.get };
      case 'json':
        // `feedback.[*]` reads the first non-empty value of any feedback type and takes no
        // inferred cast (the mirror's compile_get_field_with_inferred_cast).
        return path.startsWith('feedback.[*]') ? { kind: 'string', get: acc.str } : { kind: 'string', get: acc.str, json: acc };
    }
  }

  /**
   * A JSON field cast to a literal's type (semantics.md#calls-expr-compare): the accessor's
   * memoised readings where possible.
   */
  private castJson(acc: JsonAccessor, cast: 'int' | 'double' | 'bool'): Node {
    switch (cast) {
      case 'int':
        return { kind: 'number', get: (row) => acc.int(row) };
      case 'double':
        return { kind: 'number', get: (row) => acc.float(row) };
      case 'bool':
        return { kind: 'number', get: (row) => toBoolCastOrNull(acc.str(row)) };
    }
  }

  /** The node with the inferred cast applied when it is a castable JSON field. */
  private withInferredCast(node: Node, cast: InferredCast | null): Node {
    return cast !== null && node.kind === 'string' && node.json ? this.castJson(node.json, cast) : node;
  }

  /**
   * `$convert` (semantics.md#calls-expr-convert): casts work on the operand's text
   * (`_ch_to_string`); `exists` is "the operand is not NULL", so it is always true for a dynamic
   * field (which reads as '').
   */
  private convert(inner: Node, to: CastTo): Node {
    if (to === 'exists') {
      const g = inner.get as Getter<unknown>;
      return { kind: 'bool', get: (row) => g(row) !== null };
    }
    if (to === 'string') return { kind: 'string', get: stringGetter(inner) };
    // An explicit bool cast is plain toUInt8OrNull of the text: JSON true/false (text 'true' /
    // 'false') read as NULL (semantics.md#calls-expr-convert). A condition or bool literal is
    // already 0/1 (a UInt8 in SQL).
    if (to === 'bool' && inner.kind === 'bool') return { kind: 'number', get: mapNullable(inner.get, (v) => (v ? 1 : 0)) };
    if (inner.kind === 'string' && inner.json && to !== 'bool') return this.castJson(inner.json, to);
    const s = stringGetter(inner);
    const parse = to === 'int' ? toInt64OrNull : to === 'double' ? toFloat64OrNull : toUInt8OrNull;
    return {
      kind: 'number',
      get: (row) => {
        const v = s(row);
        return v === null ? null : parse(v);
      },
    };
  }

  /**
   * `$and` / `$or` (semantics.md#calls-expr-logic): empty is a 400, one operand is that operand,
   * more use Kleene logic.
   */
  private logical(op: 'and' | 'or', args: readonly Expr[], loc: ErrorPath): Node {
    const key = `$${op}`;
    if (args.length === 0) throw invalidRequest(op === 'and' ? 'TQ_EMPTY_AND' : 'TQ_EMPTY_OR', {}, [...loc, key]);
    if (args.length === 1) return this.operand(args[0], [...loc, key, 0]);
    // Kleene AND/OR give the same answer in any order, so cheap operands go first: a column
    // test that settles most rows saves parsing JSON bodies for them (first, cold scans).
    const nodes = args.map((a, i) => this.operand(a, [...loc, key, i]));
    const parts = nodes
      .map((node, i) => ({ get: truthGetter(node), cost: readsJson(args[i], this.costly) ? 1 : 0 }))
      .sort((a, b) => a.cost - b.cost)
      .map((p) => p.get);
    const n = parts.length;
    // AND: any false → false, else any NULL → NULL. OR: any true → true, else any NULL → NULL.
    const decisive = op === 'or';
    return {
      kind: 'bool',
      get: (row) => {
        let sawNull = false;
        for (let i = 0; i < n; i++) {
          const v = parts[i](row);
          if (v === decisive) return decisive;
          if (v === null) sawNull = true;
        }
        return sawNull ? null : !decisive;
      },
    };
  }

  /**
   * `$eq`/`$gt`/`$gte`/`$lt`/`$lte` (semantics.md#calls-json-read,
   * semantics.md#calls-expr-compare).
   */
  private comparison(op: ComparisonOp, left: Expr, right: Expr, loc: ErrorPath): Node {
    // `$eq [x, null]` is `x IS NULL` (the right operand is not compiled).
    if (op === 'eq' && right.op === 'literal' && right.value.type === 'null') {
      const l = this.operand(left, [...loc, 0]);
      const g = l.get as Getter<unknown>;
      if (l.constant) return constBool(l.constant.value === null);
      return { kind: 'bool', get: (row) => g(row) === null };
    }
    let l = this.operand(left, [...loc, 0]);
    let r = this.operand(right, [...loc, 1]);
    // A literal compared with a datetime column is read as a time; then no cast is inferred.
    const dtField = (e: Expr, n: Node) => e.op === 'getField' && n.kind === 'datetime';
    if (dtField(left, l) || dtField(right, r)) {
      let converted = false;
      if (left.op === 'literal') {
        const us = datetimeLiteralMicros(left.value);
        if (us !== null) {
          l = { kind: 'datetime', get: () => us, constant: { value: us } };
          converted = true;
        }
      }
      if (right.op === 'literal') {
        const us = datetimeLiteralMicros(right.value);
        if (us !== null) {
          r = { kind: 'datetime', get: () => us, constant: { value: us } };
          converted = true;
        }
      }
      if (converted) return compareNodes(op, l, r);
    }
    l = this.withInferredCast(l, inferLiteralCast(right));
    r = this.withInferredCast(r, inferLiteralCast(left));
    if (op === 'eq') {
      const equal = textEqualsLiteral(l, r) ?? textEqualsLiteral(r, l);
      if (equal !== null) return equal;
    }
    const cmp = compareNodes(op, l, r);
    return l.constant ? perDistinctValue(r, l, cmp) : perDistinctValue(l, r, cmp);
  }

  /**
   * `$in` (semantics.md#calls-expr-in): NULL left → NULL; true if any option is equal under `$eq`
   * rules; else false.
   */
  private in(e: InExpr, loc: ErrorPath): Node {
    const left = this.withInferredCast(this.operand(e.left, [...loc, 0]), inferSharedCast(e.options));
    const options = e.options.map((o, i) => this.operand(o, [...loc, 1, i]));
    const lg = left.get as Getter<unknown>;

    // All options constants of the left's comparison class: a set lookup.
    const kind = compareKind(left);
    if ((kind === 'number' || kind === 'string') && options.every((o) => o.constant && (compareKind(o) === kind || compareKind(o) === 'null'))) {
      const values = new Set<unknown>();
      for (const o of options) {
        const c = constantOf(o)!.value;
        if (c !== null) values.add(c);
      }
      const asComparable = comparableGetter(left);
      return perDistinctValue(left, constBool(true), {
        kind: 'bool',
        get: (row) => {
          const v = asComparable(row);
          return v === null ? null : values.has(v);
        },
      });
    }

    // General case: each option compared with the left value computed once per row.
    let current: unknown = null;
    const proxy = { ...left, get: () => current, constant: undefined } as Node;
    const tests = options.map((o) => compareNodes('eq', proxy, o).get);
    return {
      kind: 'bool',
      get: (row) => {
        const v = lg(row);
        if (v === null) return null;
        for (const t of tests) {
          current = v;
          if (t(row) === true) return true;
        }
        return false;
      },
    };
  }

  /**
   * `$contains` (semantics.md#calls-expr-contains): ClickHouse position() > 0, ASCII case folding
   * when case-insensitive; an empty substr matches. `$containsToken`: hasToken, whole tokens only;
   * a substr that is not a single token (has separators) matches nothing (NULL), as hasTokenOrNull.
   * NULL on either side gives NULL; other non-strings never match.
   */
  private contains(e: ContainsExpr, loc: ErrorPath): Node {
    const input = this.operand(e.input, [...loc, 'input']);
    const substr = this.operand(e.substr, [...loc, 'substr']);
    const ig = input.get as Getter<unknown>;
    const sg = substr.get as Getter<unknown>;
    if (input.kind === 'null' || substr.kind === 'null') return constBool(null);
    if (input.kind !== 'string' || substr.kind !== 'string') {
      return { kind: 'bool', get: (row) => (ig(row) === null || sg(row) === null ? null : false) };
    }
    const ci = e.caseInsensitive;
    const hay = input.get;
    const needle = substr.get;
    const found = SUBSTRING_TESTS[e.op];
    return perDistinctValue(input, substr, {
      kind: 'bool',
      get: (row) => {
        const h = hay(row);
        if (h === null) return null;
        const n = needle(row);
        return n === null ? null : found(h, n, ci);
      },
    });
  }
}

/**
 * Compiles `e` (the request's `query.$expr`, found at `loc`) against `resolver`. The result is
 * the row's truth value: true, false or null (NULL); callers keep a row only on `true`.
 * @throws InvalidFieldError (422) for fields the resolver refuses, InvalidRequestError (400) for
 *   empty `$and`/`$or` and dict/list literals.
 */
export function compileExpr(
  e: Expr,
  resolver: FieldResolver,
  loc: ErrorPath = ['body', 'query', '$expr'],
): (row: number) => boolean | null {
  const root = new Compiler(resolver).operand(e, loc);
  if (root.constant) {
    const v = truthGetter(root)(0);
    return () => v;
  }
  return truthGetter(root);
}

/**
 * Equalities on indexed columns (`isIndexed`, the store's list: filter.ts INDEXED_COLUMNS) that
 * every matching row must satisfy: `$eq` of such a column
 * with a string literal, or `$in` of such a column with literal options, found at the top level
 * or inside `$and` (and one-operand `$or`), never under `$or`/`$not`. For each entry, a matching
 * row's column value is one of `values`, so the rows holding those values are a superset of the
 * matches. Non-string literal options are dropped (they never equal a string column).
 */
export function indexableEqualities(e: Expr, isIndexed: (field: string) => boolean): Array<{ field: string; values: string[] }> {
  const out: Array<{ field: string; values: string[] }> = [];
  const visit = (x: Expr): void => {
    if ((x.op === 'and' || x.op === 'or') && x.args.length === 1) return visit(x.args[0]);
    if (x.op === 'and') return x.args.forEach(visit);
    if (x.op === 'eq') {
      const [f, l] = x.left.op === 'getField' ? [x.left, x.right] : [x.right, x.left];
      if (f.op === 'getField' && isIndexed(f.path) && l.op === 'literal' && l.value.type === 'string') {
        out.push({ field: f.path, values: [l.value.value] });
      }
      return;
    }
    if (x.op === 'in' && x.left.op === 'getField' && isIndexed(x.left.path)) {
      const values: string[] = [];
      for (const o of x.options) {
        if (o.op !== 'literal') return; // a computed option could equal anything
        if (o.value.type === 'string') values.push(o.value.value);
      }
      out.push({ field: x.left.path, values });
    }
  };
  visit(e);
  return out;
}
