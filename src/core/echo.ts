/**
 * Bounding what a 422 repeats back. FastAPI echoes the offending `input` (and keys in `loc`)
 * whole; a 10 MB bad value would make a 40 MB error body. tq keeps echoes whose JSON text fits
 * in ECHO_MAX_CHARS as they are; a longer string is cut to its first ECHO_MAX_CHARS characters
 * followed by `…`; a longer array or object becomes a string holding the first ECHO_MAX_CHARS
 * characters of its JSON text followed by `…`. Validation keeps at most MAX_ISSUES issues, and
 * a detail list ends once its JSON passes DETAIL_MAX_CHARS (the first issue is always kept).
 */

export const ECHO_MAX_CHARS = 1000;
export const MAX_ISSUES = 1000;
export const DETAIL_MAX_CHARS = 1024 * 1024;
const ELLIPSIS = '…';

/** The first `max` characters of `s`, never ending inside a surrogate pair. */
function cut(s: string, max: number): string {
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return s.slice(0, end);
}

export function boundString(s: string, max = ECHO_MAX_CHARS): string {
  return s.length <= max ? s : cut(s, max) + ELLIPSIS;
}

type Frame = { items: unknown[]; keys: string[] | null; i: number };

/** Leaves of an echo: primitives, and objects that serialise themselves (LosslessNumber, Date). */
const isLeaf = (v: unknown): boolean =>
  v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function';

/**
 * The JSON text of `value`, stopping once it is longer than `max` characters (explicit stack:
 * the depth is bounded upstream, but this must not depend on it). Values JSON cannot hold
 * (undefined, functions) are written as null, which is all an echo needs.
 */
function boundedJson(value: unknown, max: number): { text: string; complete: boolean } {
  let out = '';
  const scalar = (v: unknown) => {
    if (typeof v === 'string') return JSON.stringify(v.length > max ? cut(v, max) : v);
    const text = JSON.stringify(v);
    return text === undefined ? 'null' : text;
  };
  const open = (v: unknown): Frame | null => {
    if (Array.isArray(v)) {
      out += '[';
      return { items: v, keys: null, i: 0 };
    }
    if (!isLeaf(v)) {
      const keys = Object.keys(v as object);
      out += '{';
      return { items: keys.map((k) => (v as Record<string, unknown>)[k]), keys, i: 0 };
    }
    out += scalar(v);
    return null;
  };
  const stack: Frame[] = [];
  const first = open(value);
  if (first) stack.push(first);
  while (stack.length > 0 && out.length <= max) {
    const top = stack[stack.length - 1];
    if (top.i === top.items.length) {
      out += top.keys ? '}' : ']';
      stack.pop();
      continue;
    }
    if (top.i > 0) out += ',';
    if (top.keys) out += scalar(top.keys[top.i]) + ':';
    const child = open(top.items[top.i++]);
    if (child) stack.push(child);
  }
  return { text: out, complete: stack.length === 0 && out.length <= max };
}

/** `value` as a 422 may echo it (see the module comment). */
export function boundEcho(value: unknown, max = ECHO_MAX_CHARS): unknown {
  if (typeof value === 'string') return boundString(value, max);
  if (isLeaf(value)) return value;
  const { text, complete } = boundedJson(value, max);
  return complete ? value : cut(text, max) + ELLIPSIS;
}
