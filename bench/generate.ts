/**
 * The benchmark data set: a fixtures directory written by the deterministic generator
 * (src/gen/generate.ts) and cached under the OS temp directory, so repeated runs at the same
 * size skip the minutes it takes to write a million calls.
 *
 * Layout of `<tmp>/tq-bench-v2-<calls>-<seed>/` (a fixtures directory `tq --fixtures` reads):
 *   calls.jsonl          the calls (what `tq gen` writes), every third call's inputs holding a
 *                        `prompt` object ref (what `expand_columns` resolves)
 *   objects.jsonl        the prompt objects those refs name
 *   feedback.jsonl       feedback on every 20th call
 *   table-only/tables.jsonl   one table of `tableRows` rows, apart, so the calls engine holds
 *                        no table (and the table engine no calls)
 *   bench-data.json      written last: the sizes, proof that the directory is complete
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine.ts';
import { generateCalls, generateTable } from '../src/gen/generate.ts';
import { loadObjectRecord } from '../src/load/records.ts';

export interface BenchDataOptions {
  calls: number;
  seed?: number;
  projectId?: string;
  /** Rows of the generated table; defaults to the number of calls. */
  tableRows?: number;
  /** Where the cached directories live; defaults to os.tmpdir(). */
  root?: string;
  /** Progress messages (generation only). */
  log?: (message: string) => void;
}

export interface BenchData {
  /** The fixtures directory: calls, objects, feedback. */
  dir: string;
  callsFile: string;
  tablesFile: string;
  /** A directory whose only fixture file is the table. */
  tableOnlyDir: string;
  calls: number;
  seed: number;
  projectId: string;
  tableRows: number;
  callsBytes: number;
  tablesBytes: number;
  /** Refs written into calls' `inputs.prompt`, and the feedback rows. */
  promptObjects: number;
  feedbackRows: number;
}

const MARKER = 'bench-data.json';
/** Bumped whenever the layout or content changes: old cached directories are not reused. */
const DATA_VERSION = 2;
const PROMPTS = 20;
/** Every REF_EVERY-th call carries a prompt ref; every FEEDBACK_EVERY-th call has feedback. */
export const REF_EVERY = 3;
export const FEEDBACK_EVERY = 20;

/** Writes lines with `\n` endings in large chunks, honouring backpressure. */
async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  let batch: string[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const chunk = batch.join('\n') + '\n';
    batch = [];
    batchChars = 0;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  for (const line of lines) {
    batch.push(line);
    batchChars += line.length;
    if (batchChars >= 1 << 20) await flush();
  }
  await flush();
  out.end();
  await once(out, 'close');
}

/** The prompt objects, and the ref URI of each (digests as tq computes them on load). */
function promptObjects(projectId: string): { lines: string[]; refs: string[] } {
  const engine = createEngine();
  const lines: string[] = [];
  const refs: string[] = [];
  for (let k = 0; k < PROMPTS; k++) {
    const line = JSON.stringify({
      project_id: projectId,
      object_id: `prompt-${k}`,
      created_at: '2025-01-01T00:00:00Z',
      val: { _type: 'Prompt', name: `prompt-${k}`, template: `You are support agent #${k}. Answer briefly.`, temperature: k / 20 },
    });
    const { digest } = loadObjectRecord(engine, line);
    lines.push(line);
    refs.push(`weave:///${projectId}/object/prompt-${k}:${digest}`);
  }
  return { lines, refs };
}

const INPUTS_KEY = '"inputs":{';

/** The generated calls, every REF_EVERY-th with `inputs.prompt` set to an object ref. */
function* callsWithRefs(calls: Iterable<string>, refs: readonly string[]): Generator<string> {
  let n = 0;
  for (const line of calls) {
    if (n % REF_EVERY === 0) {
      const at = line.indexOf(INPUTS_KEY) + INPUTS_KEY.length;
      yield `${line.slice(0, at)}"prompt":${JSON.stringify(refs[n % refs.length])},${line.slice(at)}`;
    } else yield line;
    n++;
  }
}

const idOfLine = (line: string) => line.slice(7, line.indexOf('"', 7)); // lines start {"id":"

/** Feedback on every FEEDBACK_EVERY-th call of calls.jsonl. */
function* feedbackLines(callLines: Iterable<string>, projectId: string): Generator<string> {
  let n = 0;
  for (const line of callLines) {
    if (n % FEEDBACK_EVERY === 0) {
      yield JSON.stringify({
        id: `00000000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`,
        project_id: projectId,
        weave_ref: `weave:///${projectId}/call/${idOfLine(line)}`,
        feedback_type: 'bench.score',
        payload: { score: n % 5 },
        creator: null,
        created_at: '2025-06-01T00:00:00Z',
        svc_user_id: 'user-bench',
      });
    }
    n++;
  }
}

/** The cached data set for these options, generated first when it is missing or incomplete. */
export async function ensureBenchData(o: BenchDataOptions): Promise<BenchData> {
  const seed = o.seed ?? 1;
  const projectId = o.projectId ?? 'bench/gen';
  const tableRows = o.tableRows ?? o.calls;
  const dir = join(o.root ?? tmpdir(), `tq-bench-v${DATA_VERSION}-${o.calls}-${seed}`);
  const describe = (): BenchData => ({
    dir,
    callsFile: join(dir, 'calls.jsonl'),
    tablesFile: join(dir, 'table-only', 'tables.jsonl'),
    tableOnlyDir: join(dir, 'table-only'),
    calls: o.calls,
    seed,
    projectId,
    tableRows,
    callsBytes: statSync(join(dir, 'calls.jsonl')).size,
    tablesBytes: statSync(join(dir, 'table-only', 'tables.jsonl')).size,
    promptObjects: PROMPTS,
    feedbackRows: Math.ceil(o.calls / FEEDBACK_EVERY),
  });

  const marker = join(dir, MARKER);
  if (existsSync(marker)) {
    const meta = JSON.parse(readFileSync(marker, 'utf8')) as Record<string, unknown>;
    if (meta.version === DATA_VERSION && meta.calls === o.calls && meta.seed === seed && meta.projectId === projectId && meta.tableRows === tableRows) return describe();
  }

  // Generate into a scratch directory and rename it into place: a crash never leaves a
  // directory that looks complete.
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'table-only'), { recursive: true });
  const started = performance.now();
  o.log?.(`generating ${o.calls} calls and a ${tableRows}-row table into ${dir} ...`);
  const prompts = promptObjects(projectId);
  await writeLines(join(scratch, 'objects.jsonl'), prompts.lines);
  const calls = () => callsWithRefs(generateCalls({ calls: o.calls, seed, projectId }), prompts.refs);
  await writeLines(join(scratch, 'calls.jsonl'), calls());
  await writeLines(join(scratch, 'feedback.jsonl'), feedbackLines(calls(), projectId));
  await writeLines(join(scratch, 'table-only', 'tables.jsonl'), generateTable(tableRows, seed + 1, projectId));
  writeFileSync(join(scratch, MARKER), JSON.stringify({ version: DATA_VERSION, calls: o.calls, seed, projectId, tableRows }) + '\n');
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  o.log?.(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return describe();
}
