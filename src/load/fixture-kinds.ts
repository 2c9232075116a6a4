/**
 * The fixture kinds, defined once. A fixtures directory holds one file per kind
 * (`<kind>.jsonl` or `<kind>.jsonl.gz`), loaded in the order of this registry. The line loader
 * (io/load-fixtures.ts), the parallel loader (io/load-calls/), the load snapshot
 * (io/snapshot/load.ts), `tq dump` (journal/snapshot.ts), `tq ls` and `tq load --check`, and the
 * choice of what a query needs (kinds-needed.ts) all derive from it: adding a kind is one entry
 * here, and every `Record<FixtureKind, ...>` that must handle it then fails to compile until it
 * does. A file in another format that fills one of the kinds (OTLP traces fill calls) is an
 * entry of the second registry, FEEDING_FILE_REGISTRY: found and loaded line by line like a
 * kind's file, but never dumped, compacted or kept in a load snapshot (it is converted on
 * every load).
 */
import type { Engine } from '../api/types.ts';
import { TqError } from '../core/errors.ts';
import { storeOtlpExport } from '../otel/fixtures.ts';
import { OtlpFormatError } from '../otel/model.ts';
import { DuplicateCallError } from '../store/call-table.ts';
import { parseCallRecord, RecordProblem } from './calls/call-record.ts';
import { loadCostRecord, loadFeedbackRecord, loadObjectRecord, loadTableRecord } from './records.ts';

/** One line of a fixture file: its text, and its bytes (a call keeps its JSON parts as bytes). */
export interface FixtureLine {
  text: string;
  buf: Buffer;
  start: number;
  end: number;
  /**
   * Given for a long line only: told the share of the line stored so far (0..1), so that a
   * progress display moves while a record of many rows (a one-line table) is stored.
   */
  progress?: (share: number) => void;
}

/** How the lines of a fixture file are stored. */
export interface FixtureLineSpec {
  /** Stores the records of one non-empty line and returns how many; a bad record throws RecordProblem. */
  store(engine: Engine, line: FixtureLine): number;
}

export interface FixtureKindSpec extends FixtureLineSpec {
  /**
   * Whether a large file of this kind is read and byte-scanned on a worker thread while this
   * thread stores the rows (io/load-calls/parallel.ts). Only the calls line scan exists.
   */
  prescanned: boolean;
  /**
   * How the load snapshot holds the kind: `calls` (the call tables, the bulk of every load),
   * `feedback` (its rows, in the calls file's snapshot, when their ids and times are in the
   * file), or `image` (a snapshot of its own per fixture file: io/snapshot/kind-image.ts, which
   * needs a codec for every such kind).
   */
  snapshot: 'calls' | 'feedback' | 'image';
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new RecordProblem(`invalid JSON: ${(e as Error).message}`);
  }
}

function storeCallLine(engine: Engine, { text, buf, start, end }: FixtureLine): number {
  const value = parseLine(text);
  const call = parseCallRecord(value, engine.options.fieldPrefix);
  try {
    engine.store.projectForWrite(call.projectId).calls.load(call.record, buf, start, end);
  } catch (e) {
    if (e instanceof DuplicateCallError) throw new RecordProblem(e.message);
    throw e;
  }
  return 1;
}

/** One record per line, stored by `load` (which throws RecordProblem for a bad one). */
const oneRecord =
  (load: (engine: Engine, text: string, progress?: (share: number) => void) => unknown) =>
  (engine: Engine, line: FixtureLine): number => {
    load(engine, line.text, line.progress);
    return 1;
  };

export const FIXTURE_KIND_REGISTRY = {
  calls: { store: storeCallLine, prescanned: true, snapshot: 'calls' },
  tables: { store: oneRecord(loadTableRecord), prescanned: false, snapshot: 'image' },
  objects: { store: oneRecord(loadObjectRecord), prescanned: false, snapshot: 'image' },
  feedback: { store: oneRecord(loadFeedbackRecord), prescanned: false, snapshot: 'feedback' },
  costs: { store: oneRecord(loadCostRecord), prescanned: false, snapshot: 'image' },
} satisfies Record<string, FixtureKindSpec>;

/** Which fixture file a line belongs to (`calls.jsonl`, `tables.jsonl`, ...). */
export type FixtureKind = keyof typeof FIXTURE_KIND_REGISTRY;

/** Every kind, in load order. */
export const FIXTURE_KINDS = Object.keys(FIXTURE_KIND_REGISTRY) as readonly FixtureKind[];

export const isFixtureKind = (name: string): name is FixtureKind => Object.hasOwn(FIXTURE_KIND_REGISTRY, name);

/** A file that fills kinds from another format. */
export interface FeedingFileSpec extends FixtureLineSpec {
  /** The kinds it fills: a query that needs one of them loads the file too (kinds-needed.ts). */
  feeds: readonly FixtureKind[];
  /** The kinds it reads while storing its lines: loaded (before it) whenever it is. */
  reads: readonly FixtureKind[];
}

/** One OTLP/JSON trace export per line (src/otel/fixtures.ts); it counts the calls it stored. */
function storeOtlpLine(engine: Engine, { text }: FixtureLine): number {
  const value = parseLine(text);
  try {
    return storeOtlpExport(engine, value);
  } catch (e) {
    if (e instanceof OtlpFormatError || e instanceof TqError) throw new RecordProblem(e.message);
    throw e;
  }
}

export const FEEDING_FILE_REGISTRY = {
  // Spans become calls and the op objects their op names refer to; a span reuses an op the
  // objects file holds (semantics.md#otel-op-objects).
  'otel-traces': { feeds: ['calls', 'objects'], reads: ['objects'], store: storeOtlpLine },
} satisfies Record<string, FeedingFileSpec>;

/** What a fixture file holds, named as its file is (`<kind>.jsonl[.gz]`): a kind, or a file that feeds one. */
export type FixtureFileKind = FixtureKind | keyof typeof FEEDING_FILE_REGISTRY;

/** Every file kind: the kinds in load order, then the files that feed them. */
export const FIXTURE_FILE_KINDS = [...FIXTURE_KINDS, ...Object.keys(FEEDING_FILE_REGISTRY)] as readonly FixtureFileKind[];

export const isFixtureFileKind = (name: string): name is FixtureFileKind => isFixtureKind(name) || Object.hasOwn(FEEDING_FILE_REGISTRY, name);

/** How the lines of a file kind are stored. */
export const lineSpecOf = (kind: FixtureFileKind): FixtureLineSpec => (isFixtureKind(kind) ? FIXTURE_KIND_REGISTRY[kind] : FEEDING_FILE_REGISTRY[kind]);

/** The kinds a file fills: its own, or those it feeds (OTLP traces become calls and op objects). */
export const kindsFilledBy = (kind: FixtureFileKind): readonly FixtureKind[] => (isFixtureKind(kind) ? [kind] : FEEDING_FILE_REGISTRY[kind].feeds);

/**
 * The files a load that needs `kinds` reads, in their order: those that fill a needed kind, and
 * the kinds a feeding file among them reads as it is stored, so the answer equals a whole load's.
 */
export function filesForKinds<F extends { kind: FixtureFileKind }>(files: readonly F[], kinds: readonly FixtureKind[]): F[] {
  const needed = new Set(kinds);
  const fills = (f: F) => kindsFilledBy(f.kind).some((k) => needed.has(k));
  for (const f of files) if (!isFixtureKind(f.kind) && fills(f)) for (const k of FEEDING_FILE_REGISTRY[f.kind].reads) needed.add(k);
  return files.filter(fills);
}
