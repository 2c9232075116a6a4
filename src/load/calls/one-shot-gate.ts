/**
 * The one-shot gate: a calls load that keeps only the rows one calls query can answer with.
 *
 * A one-shot (`tq calls --fixtures F ...` as a whole process) needs the matching rows, not a
 * store: for a request whose filter is row-local (its project, not deleted, op names, roots
 * only) the load still reads and checks every line exactly as a full load does (the same
 * first bad line, the same message), but stores only the rows that pass the filter, and,
 * under a started_at sort with a small limit, only the rows that can reach the page (a bounded
 * top-k by started_at that keeps every row tied at its boundary, so the query's own tie-breaks
 * decide as they would over the full store). The query then runs over that smaller store and
 * prints the same bytes: rows keep their file order, every other row is one the answer could
 * not contain.
 *
 * Duplicate ids anywhere in the file are what a full load refuses; the gate keeps a 64-bit
 * hash of every id in an open-addressing table over typed arrays (no Map of strings). Two ids
 * with the same hash (a duplicate, or a collision) make the gate give up: the caller loads the
 * whole file the usual way, which names the duplicate or stores both.
 *
 * Requests the gate does not take (null from oneShotGateSpec): anything that reads other rows
 * (total storage sizes, expansions, `$expr` queries, filters on ids or refs), bare op names
 * (whose notice lists the project's op names). The caller falls back to the full load.
 */
import type { CallRecordPart } from '../../store/call-table.ts';
import { IdHash } from '../../store/id-index.ts';
import { FIELD, FIELD_COUNT, KIND } from './line-scan.ts';
import { scannedCallTaken, type CallLinePrescan } from './scanned-call.ts';

export type { ScreenedLines } from './scanned-call.ts';

const utf8 = new TextEncoder();

/** What a request keeps of the calls (see oneShotGateSpec). */
export interface OneShotGateSpec {
  projectId: string;
  /** Exact op names and prefixes (wildcards without their `*`); null: no op filter. */
  opExact: ReadonlySet<string> | null;
  opPrefixes: readonly string[];
  rootsOnly: boolean;
  /** Rows of the first `k` by started_at (ties at the boundary kept); null: every matching row. */
  topK: { k: number; descending: boolean } | null;
}

/** The request keys a one-shot gate leaves the answer of unchanged (each is row-local or paging). */
const ROW_LOCAL_KEYS = new Set(['project_id', 'filter', 'sort_by', 'limit', 'offset', 'columns', 'include_costs', 'include_feedback', 'include_usernames', 'return_expanded_column_values']);
const GATED_FILTER_KEYS = new Set(['op_names', 'trace_roots_only']);
/** A page deeper than this keeps every matching row instead of a top-k. */
const MAX_TOP_K = 10_000;
const WILDCARD = ':*';

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * The gate of a /calls/stream_query request body (parsed JSON), or null when the request is
 * not one the gate can narrow the load for without changing the answer. Anything unexpected
 * (a value the route would refuse, a key not listed) is null too: the full load then gives
 * the route's own answer or error.
 */
export function oneShotGateSpec(body: unknown): OneShotGateSpec | null {
  if (!isPlain(body)) return null;
  for (const key of Object.keys(body)) if (!ROW_LOCAL_KEYS.has(key)) return null;
  const projectId = body.project_id;
  if (typeof projectId !== 'string' || projectId === '') return null;
  let opExact: Set<string> | null = null;
  const opPrefixes: string[] = [];
  let rootsOnly = false;
  const filter = body.filter;
  if (filter !== undefined && filter !== null) {
    if (!isPlain(filter)) return null;
    for (const key of Object.keys(filter)) if (!GATED_FILTER_KEYS.has(key)) return null;
    const ops = filter.op_names;
    if (ops !== undefined && ops !== null) {
      if (!Array.isArray(ops) || ops.length > 1000) return null;
      // An empty list is no filter (semantics.md#calls-filter-empty-lists).
      if (ops.length > 0) {
        opExact = new Set();
        for (const op of ops) {
          if (typeof op !== 'string') return null;
          // A bare name matches nothing and earns a notice that lists the project's op names.
          if (op !== '' && !op.startsWith('weave:')) return null;
          if (op.endsWith(WILDCARD)) opPrefixes.push(op.slice(0, -1));
          else opExact.add(op);
        }
      }
    }
    const roots = filter.trace_roots_only;
    if (roots !== undefined && roots !== null && typeof roots !== 'boolean') return null;
    rootsOnly = roots === true;
  }
  return { projectId, opExact, opPrefixes, rootsOnly, topK: topKOf(body) };
}

/** The bounded top-k a started_at-first sort with a small page allows, or null. */
function topKOf(body: Record<string, unknown>): OneShotGateSpec['topK'] {
  const { limit, offset, sort_by: sortBy } = body;
  if (!isCount(limit) || !(offset === undefined || offset === null || isCount(offset))) return null;
  const k = limit + ((offset as number | null | undefined) ?? 0);
  if (k > MAX_TOP_K) return null;
  // No sort_by: started_at asc, then id (semantics.md#calls-sort-default).
  if (sortBy === undefined || sortBy === null) return { k, descending: false };
  if (!Array.isArray(sortBy) || sortBy.length === 0) return null;
  const first = sortBy[0] as unknown;
  if (!isPlain(first) || first.field !== 'started_at' || (first.direction !== 'asc' && first.direction !== 'desc')) return null;
  for (const term of sortBy) if (!isPlain(term)) return null;
  return { k, descending: first.direction === 'desc' };
}

/** Thrown when two ids hash alike: the caller loads the whole file the usual way. */
export class OneShotGateGaveUp extends Error {
  constructor() {
    super('the one-shot gate met two ids with the same hash; loading every row');
  }
}

/** A row the top-k keeps for now: its line, copied into the arena at [from, to), stored once the file is read. */
interface Candidate {
  key: number;
  line: number;
  from: number;
  to: number;
}

/** What a GateScreen says of a prescanned line (ScreenedLines, in scanned-call.ts). */
export const SCREENED = {
  /** The fast path does not take the line (scannedCallTaken): the slow path reads it. */
  SLOW: 0,
  /** Taken; its project is not the request's. */
  OTHER_PROJECT: 1,
  /** Taken, in the request's project, and left out by the row-local filter (deleted, not a root, another op). */
  LEFT_OUT: 2,
  /** Taken and passes the row-local filter: the top-k (if any) decides. */
  CANDIDATE: 3,
} as const;

/**
 * The row-local part of a gate: what can be decided of one line from its prescan alone, on
 * whichever thread scanned it (its bytes are still in that core's cache there), with the 64-bit
 * hash of its id. Everything that depends on earlier lines (duplicate ids, the projects seen,
 * the top-k) stays with the OneShotGate, on the thread that stores.
 */
export class GateScreen {
  private readonly projectBytes: Uint8Array;
  /** The op names as UTF-8 bytes, compared in place; null: too many exact names (a Set of strings is then faster). */
  private readonly opExactBytes: Uint8Array[] | null;
  private readonly opPrefixBytes: Uint8Array[];
  /** The hash of the id of the line screened last (the store's IdHash: its halves `a`, `b`). */
  readonly idHash = new IdHash();

  constructor(readonly spec: OneShotGateSpec) {
    this.projectBytes = utf8.encode(spec.projectId);
    this.opExactBytes = spec.opExact === null || spec.opExact.size > 8 ? null : [...spec.opExact].map((op) => utf8.encode(op));
    this.opPrefixBytes = spec.opPrefixes.map((op) => utf8.encode(op));
  }

  /**
   * The verdict (SCREENED) on the prescanned line in `slot`; for a line the fast path takes,
   * its id's hash is left in idHash.
   */
  screen(p: CallLinePrescan, slot: number, buf: Buffer): number {
    if (!scannedCallTaken(p, slot, buf)) return SCREENED.SLOW;
    const base = slot * FIELD_COUNT;
    const idAt = base + FIELD.id;
    if (p.kinds[idAt] === KIND.STRING) this.idHash.bytes(buf, p.starts[idAt] + 1, p.ends[idAt] - 1);
    else this.idHash.string(JSON.parse(buf.toString('utf8', p.starts[idAt], p.ends[idAt])) as string);
    const projectAt = base + FIELD.project_id;
    if (!(p.kinds[projectAt] === KIND.STRING && bytesAre(buf, p.starts[projectAt] + 1, p.ends[projectAt] - 1, this.projectBytes))) {
      if (stringAt(p, buf, projectAt) !== this.spec.projectId) return SCREENED.OTHER_PROJECT;
    }
    if (!Number.isNaN(p.micros[slot * 3 + 2])) return SCREENED.LEFT_OUT; // deleted
    const parentKind = p.kinds[base + FIELD.parent_id];
    if (this.spec.rootsOnly && parentKind !== KIND.ABSENT && parentKind !== KIND.NULL) return SCREENED.LEFT_OUT;
    if (this.spec.opExact !== null) {
      const opAt = base + FIELD.op_name;
      if (p.kinds[opAt] !== KIND.STRING || this.opExactBytes === null) {
        if (!this.opMatches(stringAt(p, buf, opAt))) return SCREENED.LEFT_OUT;
      } else if (!this.opBytesMatch(buf, p.starts[opAt] + 1, p.ends[opAt] - 1)) return SCREENED.LEFT_OUT;
    }
    return SCREENED.CANDIDATE;
  }

  opMatches(opName: string): boolean {
    const s = this.spec;
    return s.opExact === null || s.opExact.has(opName) || startsWithAny(opName, s.opPrefixes);
  }

  private opBytesMatch(buf: Uint8Array, from: number, to: number): boolean {
    for (const prefix of this.opPrefixBytes) if (to - from >= prefix.length && bytesAre(buf, from, from + prefix.length, prefix)) return true;
    for (const exact of this.opExactBytes!) if (bytesAre(buf, from, to, exact)) return true;
    return false;
  }
}

export class OneShotGate {
  /** Open addressing over two 32-bit hashes per id, side by side (one cache line per probe); (0, 0) is an empty slot. */
  private hashes = new Int32Array(2 << 16);
  private ids = 0;
  /** The calls file's size (0: unknown), and the bytes of the lines whose ids were added so far (until the set is sized). */
  private fileBytes = 0;
  private sampledBytes = 0;
  /** Every project a row named (a notice says which exist). */
  readonly projectsSeen = new Set<string>();
  private candidates: Candidate[] = [];
  private arena = new Uint8Array(1 << 16);
  private arenaUsed = 0;
  /** Under a top-k: rows whose key is above this cannot reach the page. */
  private bound = Infinity;
  private readonly screener: GateScreen;

  constructor(readonly spec: OneShotGateSpec) {
    this.screener = new GateScreen(spec);
  }

  /**
   * The calls file holds `bytes` bytes: once the first SAMPLE_IDS lines tell their mean length,
   * the id set is sized for the ids the file then holds (at most MAX_SIZED_SLOTS), instead of
   * doubling up to it (each doubling places every id again: ~4M placements, each a cache
   * miss, for 3M ids). A wrong estimate costs memory or doublings, never an answer.
   */
  expectFileBytes(bytes: number): void {
    this.fileBytes = bytes;
  }

  /**
   * Whether the row must be stored now (true), or is left out or kept for later (false): every
   * row of the file goes through here or screen() once, in order, after the checks a full load
   * makes. `bytes[start, end)` is the line (what the top-k copies), `line` its number.
   */
  admit(projectId: string, record: CallRecordPart, bytes: Uint8Array, start: number, end: number, line: number): boolean {
    this.screener.idHash.string(record.id);
    if (this.fileBytes !== 0) this.sample(end - start);
    this.remember();
    if (projectId !== this.spec.projectId) {
      this.projectsSeen.add(projectId);
      return false;
    }
    this.sawProject();
    if (record.deleted_at !== null || (this.spec.rootsOnly && record.parent_id !== null) || !this.screener.opMatches(record.op_name)) return false;
    return this.withinTopK(record.started_at, bytes, start, end, line);
  }

  /**
   * admit() for a line the fast path may take, read from its prescan in `slot` without making
   * its strings: false when the fast path does not take it (the caller reads it the slow way,
   * through admit()); else whether the row must be stored now (as admit()), in `store`.
   */
  screen(p: CallLinePrescan, slot: number, buf: Buffer, start: number, end: number, line: number): { taken: boolean; store: boolean } {
    const verdict = this.screener.screen(p, slot, buf);
    if (verdict === SCREENED.SLOW) return NOT_TAKEN;
    return this.screened(verdict, this.screener.idHash.a, this.screener.idHash.b, p, slot, buf, start, end, line) ? STORE : LEAVE;
  }

  /**
   * The rest of screen() for a line a GateScreen already judged (on the scanning thread):
   * `verdict` (not SLOW) and its id hash `a`, `b`. Whether the row must be stored now.
   */
  screened(verdict: number, a: number, b: number, p: CallLinePrescan, slot: number, buf: Buffer, start: number, end: number, line: number): boolean {
    if (this.fileBytes !== 0) this.sample(end - start);
    this.insert(a, b);
    if (verdict === SCREENED.OTHER_PROJECT) {
      this.projectsSeen.add(stringAt(p, buf, slot * FIELD_COUNT + FIELD.project_id));
      return false;
    }
    this.sawProject();
    if (verdict === SCREENED.LEFT_OUT) return false;
    return this.withinTopK(p.micros[slot * 3], buf, start, end, line);
  }

  private sawWanted = false;
  private sawProject(): void {
    if (this.sawWanted) return;
    this.sawWanted = true;
    this.projectsSeen.add(this.spec.projectId);
  }

  private withinTopK(startedAt: number, bytes: Uint8Array, start: number, end: number, line: number): boolean {
    const topK = this.spec.topK;
    if (topK === null) return true;
    const key = topK.descending ? -startedAt : startedAt;
    if (key > this.bound) return false;
    const from = this.arenaUsed, to = from + end - start;
    if (to > this.arena.length) {
      const bigger = new Uint8Array(Math.max(2 * this.arena.length, to));
      bigger.set(this.arena.subarray(0, from));
      this.arena = bigger;
    }
    this.arena.set(new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start), from);
    this.arenaUsed = to;
    this.candidates.push({ key, line, from, to });
    if (this.candidates.length >= 2 * topK.k + 1024) this.prune();
    return false;
  }

  /** The kept rows of a top-k, in file order (their lines and numbers), once the file is read. */
  keptLines(): Array<{ bytes: Uint8Array; line: number }> {
    if (this.spec.topK !== null) this.prune();
    return this.candidates.map((c) => ({ bytes: this.arena.subarray(c.from, c.to), line: c.line }));
  }

  /** Keeps the candidates whose key is at most the k-th smallest (ties kept), in file order. */
  private prune(): void {
    const k = this.spec.topK!.k;
    if (this.candidates.length <= k) return;
    if (k === 0) {
      this.candidates = [];
      this.arenaUsed = 0;
      this.bound = -Infinity;
      return;
    }
    const keys = Float64Array.from(this.candidates, (c) => c.key).sort();
    this.bound = keys[k - 1];
    const bound = this.bound;
    // The survivors' lines move down the arena, in order (each only ever to the left).
    let used = 0;
    this.candidates = this.candidates.filter((c) => {
      if (c.key > bound) return false;
      this.arena.copyWithin(used, c.from, c.to);
      c.to = used + c.to - c.from;
      c.from = used;
      used = c.to;
      return true;
    });
    this.arenaUsed = used;
  }

  /** Adds the id hashed last by the screener; OneShotGateGaveUp when its hash is there already. */
  private remember(): void {
    this.insert(this.screener.idHash.a, this.screener.idHash.b);
  }

  private insert(a: number, b: number): void {
    if (4 * (this.ids + 1) > this.hashes.length) this.grow();
    const hashes = this.hashes;
    const mask = (hashes.length >> 1) - 1;
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      const x = hashes[2 * slot], y = hashes[2 * slot + 1];
      if (x === 0 && y === 0) {
        hashes[2 * slot] = a;
        hashes[2 * slot + 1] = b;
        this.ids++;
        return;
      }
      if (x === a && y === b) throw new OneShotGateGaveUp();
    }
  }

  /** Counts a line's bytes towards the mean; after SAMPLE_IDS lines, sizes the set for the file once. */
  private sample(lineBytes: number): void {
    this.sampledBytes += lineBytes;
    if (this.ids + 1 < SAMPLE_IDS) return;
    const expectedIds = Math.ceil(this.fileBytes / (this.sampledBytes / (this.ids + 1)));
    this.fileBytes = 0;
    // insert() keeps at most half the slots full.
    let slots = this.hashes.length >> 1;
    while (slots < MAX_SIZED_SLOTS && slots < 2 * (expectedIds + 1)) slots *= 2;
    if (slots > this.hashes.length >> 1) this.rehash(slots);
  }

  private grow(): void {
    this.rehash(this.hashes.length);
  }

  private rehash(slots: number): void {
    const old = this.hashes;
    this.hashes = new Int32Array(2 * slots);
    this.ids = 0;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.insert(old[i], old[i + 1]);
  }
}

/** Lines whose mean length sizes the id set (expectFileBytes). */
const SAMPLE_IDS = 4096;
/** The most slots the estimate alone sizes the id set to (8 B each: 128 MiB, 8M ids); more ids double it as before. */
const MAX_SIZED_SLOTS = 1 << 24;

const NOT_TAKEN = Object.freeze({ taken: false, store: false });
const LEAVE = Object.freeze({ taken: true, store: false });
const STORE = Object.freeze({ taken: true, store: true });

function startsWithAny(value: string, prefixes: readonly string[]): boolean {
  for (let i = 0; i < prefixes.length; i++) if (value.startsWith(prefixes[i])) return true;
  return false;
}

function bytesAre(buf: Uint8Array, from: number, to: number, bytes: Uint8Array): boolean {
  if (to - from !== bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[from + i] !== bytes[i]) return false;
  return true;
}

/** A string field the scan found (plain or escaped). */
function stringAt(p: CallLinePrescan, buf: Buffer, at: number): string {
  const text = buf.toString('utf8', p.starts[at], p.ends[at]);
  return p.kinds[at] === KIND.STRING ? text.slice(1, -1) : (JSON.parse(text) as string);
}
