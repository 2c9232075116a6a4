/**
 * The fixture kinds, defined once. A fixtures directory holds one file per kind
 * (`<kind>.jsonl` or `<kind>.jsonl.gz`), loaded in the order of this registry. The line loader
 * (io/load-fixtures.ts), the parallel loader (io/load-calls/), the load snapshot
 * (io/snapshot/load.ts), `tq dump` (journal/snapshot.ts), `tq ls` and `tq load --check`, and the
 * choice of what a query needs (kinds-needed.ts) all derive from it: adding a kind is one entry
 * here, and every `Record<FixtureKind, ...>` that must handle it then fails to compile until it
 * does.
 */
import type { Engine } from '../api/types.ts';
import { DuplicateCallError } from '../store/call-table.ts';
import { parseCallRecord, RecordProblem } from './calls/call-record.ts';
import { loadCostRecord, loadFeedbackRecord, loadObjectRecord, loadTableRecord } from './records.ts';

/** One line of a fixture file: its text, and its bytes (a call keeps its JSON parts as bytes). */
export interface FixtureLine {
  text: string;
  buf: Buffer;
  start: number;
  end: number;
}

export interface FixtureKindSpec {
  /** Stores the record of one non-empty line; a bad record throws RecordProblem. */
  store(engine: Engine, line: FixtureLine): void;
  /**
   * Whether a large file of this kind is read and byte-scanned on a worker thread while this
   * thread stores the rows (io/load-calls/parallel.ts). Only the calls line scan exists.
   */
  prescanned: boolean;
  /**
   * How the load snapshot holds the kind: `calls` (the call tables, the bulk of every load),
   * `feedback` (its rows, when their ids and times are in the file), or `file` (read from its
   * fixture file on every load).
   */
  snapshot: 'calls' | 'feedback' | 'file';
}

function storeCallLine(engine: Engine, { text, buf, start, end }: FixtureLine): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new RecordProblem(`invalid JSON: ${(e as Error).message}`);
  }
  const call = parseCallRecord(value, engine.options.fieldPrefix);
  try {
    engine.store.projectForWrite(call.projectId).calls.load(call.record, buf, start, end);
  } catch (e) {
    if (e instanceof DuplicateCallError) throw new RecordProblem(e.message);
    throw e;
  }
}

export const FIXTURE_KIND_REGISTRY = {
  calls: { store: storeCallLine, prescanned: true, snapshot: 'calls' },
  tables: { store: (engine, line) => void loadTableRecord(engine, line.text), prescanned: false, snapshot: 'file' },
  objects: { store: (engine, line) => void loadObjectRecord(engine, line.text), prescanned: false, snapshot: 'file' },
  feedback: { store: (engine, line) => void loadFeedbackRecord(engine, line.text), prescanned: false, snapshot: 'feedback' },
  costs: { store: (engine, line) => void loadCostRecord(engine, line.text), prescanned: false, snapshot: 'file' },
} satisfies Record<string, FixtureKindSpec>;

/** Which fixture file a line belongs to (`calls.jsonl`, `tables.jsonl`, ...). */
export type FixtureKind = keyof typeof FIXTURE_KIND_REGISTRY;

/** Every kind, in load order. */
export const FIXTURE_KINDS = Object.keys(FIXTURE_KIND_REGISTRY) as readonly FixtureKind[];

export const isFixtureKind = (name: string): name is FixtureKind => Object.hasOwn(FIXTURE_KIND_REGISTRY, name);
