/**
 * Loading a fixtures directory (or a single calls file) into a Store.
 *
 * Where the data comes from: `--fixtures`, then TQ_FIXTURES, then `./fixtures` of the working
 * directory, then the bundled demo. A directory holds calls.jsonl, tables.jsonl,
 * objects.jsonl, feedback.jsonl and costs.jsonl (each optional, each may be `.jsonl.gz`); a
 * single `.jsonl[.gz]` file holds calls only. Every malformed line is an error naming
 * `file:line` and the problem; nothing is skipped silently.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FixtureError } from '../core/errors.ts';
import type { Engine } from '../api/types.ts';
import { parseCallRecord, RecordProblem } from '../load/call-record.ts';
import { loadCostRecord, loadFeedbackRecord, loadObjectRecord, loadTableRecord } from '../load/records.ts';
import { forEachLine, type ReadProgress } from './lines.ts';
import { DuplicateCallError } from '../store/call-table.ts';

export const BUNDLED_FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export const KINDS = ['calls', 'tables', 'objects', 'feedback', 'costs'] as const;
export type Kind = (typeof KINDS)[number];
export interface FixtureFile {
  file: string;
  kind: Kind;
}

export interface LoadProgress extends ReadProgress {
  file: string;
  records: number;
}

export interface LoadReport {
  source: string;
  files: Array<{ file: string; kind: Kind; records: number }>;
}

/** Picks the fixtures location by the documented precedence. */
export function resolveFixturesPath(explicit: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (explicit) return resolve(cwd, explicit);
  if (env.TQ_FIXTURES) return resolve(cwd, env.TQ_FIXTURES);
  const local = join(cwd, 'fixtures');
  if (existsSync(local) && statSync(local).isDirectory()) return local;
  return BUNDLED_FIXTURES;
}

function filesOf(path: string): FixtureFile[] {
  if (!existsSync(path)) throw new FixtureError(path, 0, 'no such file or directory');
  if (statSync(path).isFile()) {
    if (!/\.jsonl(\.gz)?$/.test(path)) throw new FixtureError(path, 0, 'a fixtures file must end in .jsonl or .jsonl.gz');
    return [{ file: path, kind: 'calls' }];
  }
  const found = fixtureFilesIn(path);
  if (found.length === 0) throw new FixtureError(path, 0, `no fixture files (${KINDS.map((k) => k + '.jsonl').join(', ')})`);
  return found;
}

/** The fixture files a directory holds (none is not an error here). */
export function fixtureFilesIn(path: string): FixtureFile[] {
  const found: FixtureFile[] = [];
  for (const kind of KINDS) {
    const plain = join(path, `${kind}.jsonl`);
    const gz = `${plain}.gz`;
    if (existsSync(plain) && existsSync(gz)) throw new FixtureError(path, 0, `both ${kind}.jsonl and ${kind}.jsonl.gz exist; keep one`);
    if (existsSync(plain)) found.push({ file: plain, kind });
    else if (existsSync(gz)) found.push({ file: gz, kind });
  }
  return found;
}

/**
 * Loads fixtures into `engine.store`. Objects load before calls are queried, but the order
 * between files does not matter for correctness: refs resolve at query time.
 */
export async function loadFixtures(engine: Engine, path: string, onProgress?: (p: LoadProgress) => void): Promise<LoadReport> {
  return loadFixtureFiles(engine, path, filesOf(path), onProgress);
}

/** Loads the given fixture files, in order, into `engine.store`. */
export async function loadFixtureFiles(engine: Engine, source: string, files: readonly FixtureFile[], onProgress?: (p: LoadProgress) => void): Promise<LoadReport> {
  const report: LoadReport = { source, files: [] };
  const prefix = engine.options.fieldPrefix;
  for (const { file, kind } of files) {
    let records = 0;
    let last: ReadProgress = { bytesRead: 0, totalBytes: 0 };
    await forEachLine(
      file,
      ({ buf, start, end, line }) => {
        let value: unknown;
        const text = buf.toString('utf8', start, end);
        try {
          if (kind === 'calls') {
            try {
              value = JSON.parse(text);
            } catch (e) {
              throw new RecordProblem(`invalid JSON: ${(e as Error).message}`);
            }
            const { projectId, record } = parseCallRecord(value, prefix);
            try {
              engine.store.projectForWrite(projectId).calls.load(record, buf, start, end);
            } catch (e) {
              if (e instanceof DuplicateCallError) throw new RecordProblem(e.message);
              throw e;
            }
          } else if (kind === 'tables') loadTableRecord(engine, text);
          else if (kind === 'objects') loadObjectRecord(engine, text);
          else if (kind === 'feedback') loadFeedbackRecord(engine, text);
          else loadCostRecord(engine, text);
        } catch (e) {
          if (e instanceof RecordProblem) throw new FixtureError(file, line, e.message);
          throw e;
        }
        records++;
        if (onProgress && (records & 0x3fff) === 0) onProgress({ ...last, file, records });
      },
      (p) => {
        last = p;
      },
    );
    onProgress?.({ ...last, file, records });
    report.files.push({ file, kind, records });
  }
  return report;
}
