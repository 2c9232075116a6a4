/**
 * Weave ref URIs: `weave:///<entity>/<project>/<kind>/<name>:<version>[/<extra path>]`, plus the
 * internal form `weave-trace-internal:///<project id>/...` and `wandb-artifact:///...`.
 * tq speaks the external form on the wire and stores refs as sent
 * (semantics.md#calls-project-echo).
 */

type RefKind = 'object' | 'op' | 'table' | 'call' | string;

export interface ParsedRef {
  scheme: 'weave' | 'weave-trace-internal';
  /** `entity/project` (external) or the internal project id. */
  projectId: string;
  kind: RefKind;
  /** Object or op name; the table digest for tables; the call id for calls. */
  name: string;
  /** Version digest (objects, ops); null for tables and calls. */
  version: string | null;
  /** Path after the version, e.g. ["attr", "rows", "index", "3"]. */
  extra: string[];
}

const WEAVE = 'weave:///';
const INTERNAL = 'weave-trace-internal:///';
const ARTIFACT = 'wandb-artifact:///';

/** True for strings Weave interprets as refs (`string_will_be_interpreted_as_ref`). */
export const looksLikeRef = (s: string) => s.startsWith(WEAVE) || s.startsWith(INTERNAL);

const UTF8 = new TextDecoder('utf-8');
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * Percent-decoding as Weave's server decodes a ref's name and extra path (Python's
 * `urllib.parse.unquote`): a `%` not followed by two hex digits stays as it is, and bytes that are
 * not UTF-8 become U+FFFD. It never throws, so no ref string, however malformed, can make a write
 * or a read fail half-way (`decodeURIComponent` throws "URI malformed" on `o%`).
 */
export function unquoteRefPart(part: string): string {
  if (!part.includes('%')) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    // The slow path only for malformed text; linear in its length.
  }
  const pieces = part.split('%');
  let out = pieces[0];
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length > 0) out += UTF8.decode(Uint8Array.from(bytes));
    bytes = [];
  };
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i];
    const hex = piece.slice(0, 2);
    if (HEX.test(hex)) {
      bytes.push(parseInt(hex, 16));
      if (piece.length > 2) {
        flush();
        out += piece.slice(2);
      }
    } else {
      flush();
      out += '%' + piece;
    }
  }
  flush();
  return out;
}

/**
 * Parses a weave ref; null when the text is not a well-formed ref. Never throws: percent-escapes
 * decode leniently (`unquoteRefPart`), as Weave's `parse_internal_uri` does.
 */
export function parseRef(uri: string): ParsedRef | null {
  let scheme: ParsedRef['scheme'];
  let rest: string;
  let parts: string[];
  let projectId: string;
  if (uri.startsWith(WEAVE)) {
    scheme = 'weave';
    rest = uri.slice(WEAVE.length);
    parts = rest.split('/');
    if (parts.length < 4 || !parts[0] || !parts[1]) return null;
    projectId = `${parts[0]}/${parts[1]}`;
    parts = parts.slice(2);
  } else if (uri.startsWith(INTERNAL)) {
    scheme = 'weave-trace-internal';
    rest = uri.slice(INTERNAL.length);
    parts = rest.split('/');
    if (parts.length < 3 || !parts[0]) return null;
    projectId = parts[0];
    parts = parts.slice(1);
  } else {
    return null;
  }
  const [kind, nameVersion, ...extra] = parts;
  if (!kind || !nameVersion) return null;
  if (kind === 'object' || kind === 'op') {
    const colon = nameVersion.lastIndexOf(':');
    if (colon <= 0 || colon === nameVersion.length - 1) return null;
    if (extra.length % 2 !== 0) return null;
    return {
      scheme,
      projectId,
      kind,
      name: unquoteRefPart(nameVersion.slice(0, colon)),
      version: nameVersion.slice(colon + 1),
      extra,
    };
  }
  return { scheme, projectId, kind, name: nameVersion, version: null, extra };
}

/** Parses only object and op refs (what expansion and trace names accept). */
export function parseObjectRef(uri: string): ParsedRef | null {
  const ref = parseRef(uri);
  return ref && (ref.kind === 'object' || ref.kind === 'op') ? ref : null;
}

/** True for the strings `extract_refs_from_values` keeps. */
function isExtractableRef(s: string): boolean {
  if (s.startsWith(ARTIFACT)) return true;
  return looksLikeRef(s) && parseRef(s) !== null;
}

/**
 * Collects ref strings found anywhere in a JSON value (through objects and arrays), in
 * document order, as Weave does for input_refs / output_refs.
 */
export function extractRefs(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    // Every ref scheme starts with 'w' (weave:, weave-trace-internal:, wandb-artifact:).
    if (value.charCodeAt(0) === 0x77 && isExtractableRef(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) extractRefs(value[i], out);
  } else if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k in obj) extractRefs(obj[k], out);
  }
  return out;
}

/** `weave:///<project>/call/<id>`: what feedback's weave_ref names a call by. */
export const callRefUri = (projectId: string, callId: string) => `${WEAVE}${projectId}/call/${callId}`;
