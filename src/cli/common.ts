/**
 * What every tq command shares: loading the engine from fixtures, writing JSONL to stdout
 * with backpressure, human messages on stderr (colour only on a TTY and without NO_COLOR),
 * and the exit codes: 0 ok, 1 runtime error, 2 usage error, 4 an empty answer with --exit-status.
 */
import { checkBodyDepth, runRoute } from '../api/run-route.ts';
import { countNewlines } from '../api/line-stream.ts';
import { fullAccessContext } from '../api/context.ts';
import { Chalk } from 'chalk';
import type { Command } from 'commander';
import type { Engine, FieldPrefix, RequestContext, Route } from '../api/types.ts';
import { RequestSchemaError, TqError } from '../core/errors.ts';
import { schemaErrorText } from './hints.ts';
import { createEngine } from '../engine.ts';
import { filesOf, loadFixtureText, resolveFixturesPath } from '../io/load-fixtures.ts';
import { filesForKinds, FIXTURE_KINDS, type FixtureKind } from '../load/fixture-kinds.ts';
import { snapshotSettings, type SnapshotSettings } from '../io/snapshot/cache.ts';
import { loadFixtureFilesWithSnapshot } from '../io/snapshot/load.ts';
import { SnapshotDamagedError } from '../store/snapshot.ts';
import { progressReporter } from './progress.ts';
import { plainOrGunzipped, readRequestSource } from './stdin.ts';
import { openDataDir } from '../journal/data-dir.ts';
import { resolve } from 'node:path';
import { OPERATIONAL_ERRORS, OperationalError, type OperationalCode } from '../core/operational-errors.ts';

export const EXIT_OK = 0;
export const EXIT_RUNTIME = 1;
export const EXIT_USAGE = 2;
/** `--exit-status` and the answer had no lines (jq -e's code for "no result"). */
export const EXIT_EMPTY = 4;

const colourOn = process.stderr.isTTY === true && !process.env.NO_COLOR;
export const paint = new Chalk({ level: colourOn ? 1 : 0 });

export function say(message: string): void {
  process.stderr.write(message + '\n');
}

/**
 * The exit code a command asks for without failing (e.g. `tq check` with failing cases).
 * Commander discards action return values, so commands report through here.
 */
let requestedExit = EXIT_OK;
export function requestExit(code: number): void {
  requestedExit = Math.max(requestedExit, code);
}
export function takeRequestedExit(): number {
  const code = requestedExit;
  requestedExit = EXIT_OK;
  return code;
}

/** A usage mistake found by a command (exit 2). */
export class UsageError extends OperationalError<'TQ_USAGE'> {
  constructor(reason: string) {
    super('TQ_USAGE', { reason });
  }
}

export interface DataOptions {
  fixtures?: string;
  /** A `tq serve --data` directory: fixtures plus journal, read-only here. */
  data?: string;
  fieldPrefix?: string;
  /** False with --no-snapshot: load the fixture files, neither reading nor writing a load snapshot. */
  snapshot?: boolean;
  /** Read and check every body a load snapshot restores before answering (tq serve). */
  readBodies?: boolean;
}

/** The options that say where data comes from and how fields are spelled (every data command). */
export function dataOptions(cmd: Command): Command {
  return cmd
    .option('--fixtures <path>', 'fixtures directory, calls .jsonl[.gz] file, or - for calls JSON Lines (plain or gzip) from stdin (default: $TQ_FIXTURES, ./fixtures, bundled demo)')
    .option('--field-prefix <prefix>', 'wire spelling of user/run fields: svc_ or wb_', 'svc_')
    .option('--data <dir>', 'a tq serve --data directory: its fixtures plus every journaled write (instead of --fixtures)')
    .option('--no-snapshot', 'load the fixture files without the load snapshot cache (also TQ_SNAPSHOT=0)');
}

export function parsePrefix(value: string | undefined): FieldPrefix {
  const p = value ?? 'svc_';
  if (p !== 'svc_' && p !== 'wb_') throw new UsageError(`--field-prefix: must be svc_ or wb_, got '${p}'`);
  return p;
}

/**
 * Builds an engine and loads the fixtures the options (or the environment) name: every kind, or
 * only `kinds` (what a query's answer can depend on, load/kinds-needed.ts). A `--data`
 * directory always loads whole: its journal may write into any kind.
 */
export async function loadEngine(opts: DataOptions, kinds: readonly FixtureKind[] = FIXTURE_KINDS): Promise<Engine> {
  if (opts.data !== undefined && opts.fixtures !== undefined) throw new UsageError('give --data or --fixtures, not both (a data directory holds its own fixtures)');
  const snapshot = { ...snapshotOptions(opts), readBodies: opts.readBodies === true };
  if (opts.data !== undefined) return (await openDataDir(resolve(opts.data), { fieldPrefix: parsePrefix(opts.fieldPrefix), writable: false, say, onProgress: progressReporter(), snapshot })).engine;
  const engine = createEngine(undefined, { fieldPrefix: parsePrefix(opts.fieldPrefix) });
  if (opts.fixtures === '-') {
    // Calls JSON Lines (or gzip of them) from a pipe, loaded as they stream in.
    if (process.stdin.isTTY) say('tq: reading calls JSON Lines from the terminal; end them with Ctrl-D');
    await loadFixtureText(engine, 'calls', plainOrGunzipped(process.stdin), '<stdin>');
    return engine;
  }
  const path = resolveFixturesPath(opts.fixtures, process.env, process.cwd());
  const files = filesForKinds(filesOf(path), kinds);
  const report = await loadFixtureFilesWithSnapshot(engine, path, files, snapshot, progressReporter());
  for (const notice of report.notices) say(notice);
  return engine;
}

/** The load snapshot settings of a data command: the environment's, off with --no-snapshot. */
export function snapshotOptions(opts: { snapshot?: boolean }): SnapshotSettings {
  try {
    return snapshotSettings(process.env, opts.snapshot !== false);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The CLI acts as a local user with access to everything it loaded. */
export const localContext: RequestContext = fullAccessContext(process.env.USER || 'tq');

/** Reads `--request FILE|-` (a whole request body), as text: the route parses it. Stdin is read until EOF. */
export async function readRequest(source: string): Promise<string> {
  let text: string;
  try {
    text = await readRequestSource(source, process.stdin, say);
  } catch (e) {
    throw new UsageError(`--request: cannot read '${source}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // The same depth bound as every route, on the text: a hostile file is refused before anything parses it.
  checkBodyDepth({ kind: 'text', text });
  return text;
}

export function intOption(name: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${name}: must be an integer, got '${text}'`);
  return Number(text);
}

/**
 * `field[:asc|desc]` → {field, direction}. What follows the last `:` is the direction, so a
 * field that holds a colon is written with an explicit direction (`a:b:asc`).
 */
export function parseSortOption(text: string, key: 'direction' | 'order'): Record<string, string> {
  const colon = text.lastIndexOf(':');
  const field = colon < 0 ? text : text.slice(0, colon);
  const direction = colon < 0 ? 'asc' : text.slice(colon + 1);
  if (direction !== 'asc' && direction !== 'desc') throw new UsageError(`--sort: direction must be asc or desc, got '${direction}' in '${text}'`);
  if (!field) throw new UsageError(`--sort: needs a field before the direction, got '${text}'`);
  return { field, [key]: direction };
}

/** A comma-separated flag value; with `name`, an empty list is a usage error naming the flag. */
export function listOption(text: string, name?: string): string[] {
  const list = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (name !== undefined && list.length === 0) throw new UsageError(`${name}: needs at least one value, got '${text}'`);
  return list;
}

/** Writes lines to stdout, waiting for drain; stops quietly when the reader goes away. */
export async function writeLines(lines: Iterable<string>): Promise<void> {
  const out = process.stdout;
  let closed = false;
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') closed = true;
    else throw e;
  });
  for (const line of lines) {
    if (closed) return;
    if (!out.write(line + '\n')) await new Promise<void>((r) => out.once('drain', r));
  }
}

/** Writes a stream answer's chunks to stdout as they are, waiting for drain; stops quietly when the reader goes away. Returns the number of lines written. */
async function writeChunks(chunks: Iterable<Uint8Array>): Promise<number> {
  const out = process.stdout;
  let closed = false;
  let lines = 0;
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') closed = true;
    else throw e;
  });
  for (const chunk of chunks) {
    if (closed) return lines;
    lines += countNewlines(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', r));
  }
  return lines;
}

/**
 * An answer up to this many bytes is built whole before its first byte is written; a larger one
 * first has every body a load snapshot left on disk read and checked (readRestoredBodies).
 * Either way a damaged snapshot is found before stdout holds anything.
 */
const WHOLE_ANSWER_BYTES = 8 * 1024 * 1024;

/** How a stream answer's lines are shown (`--format table`, pretty JSON); absent: its bytes as they are. */
export type RenderLines = (lines: Iterable<string>) => Iterable<string>;

/**
 * Runs a route in-process on the request text and prints its result on stdout: the whole
 * answer or nothing. A load snapshot found damaged (it is then removed) before the first byte
 * is written is said on stderr, the data is loaded again with `reload` (from the fixture files)
 * and the same request answered from it. A stream answer goes through `render` when given,
 * with the same guarantee (the check comes before the first rendered line). Returns how many
 * answer lines it printed.
 */
export async function printRouteResult(engine: Engine, route: Route, text: string, reload?: () => Promise<Engine>, render?: RenderLines): Promise<number> {
  let answer;
  try {
    answer = firstPart(engine, route, text);
  } catch (e) {
    if (!(e instanceof SnapshotDamagedError) || reload === undefined) throw e;
    say(`${e.message}; loading the fixture files`);
    answer = firstPart(await reload(), route, text);
  }
  if (answer.kind === 'whole') {
    process.stdout.write(answer.bytes);
    return 1;
  }
  if (answer.kind === 'text') {
    await writeLines([answer.text]);
    return 1;
  }
  if (render !== undefined) {
    let count = 0;
    const counted = (function* () {
      for (const line of linesOf([answer.head, answer.rest])) {
        count++;
        yield line;
      }
    })();
    await writeLines(render(counted));
    return count;
  }
  return (await writeChunks(answer.head)) + (await writeChunks(answer.rest));
}

/** The lines of stream chunks (each chunk holds whole lines, each ending in a newline). */
function* linesOf(parts: Iterable<Iterable<Uint8Array>>): Generator<string> {
  const decoder = new TextDecoder();
  for (const chunks of parts) {
    for (const chunk of chunks) {
      const text = decoder.decode(chunk);
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        yield text.slice(start, end);
        start = end + 1;
      }
    }
  }
}

type FirstPart =
  | { kind: 'whole'; bytes: Uint8Array }
  | { kind: 'text'; text: string }
  | { kind: 'stream'; head: Uint8Array[]; rest: Iterable<Uint8Array> };

/**
 * Everything of the answer that is built before a byte is written: all of it, or (a stream
 * past WHOLE_ANSWER_BYTES) its first chunks, once every restored body was checked.
 */
function firstPart(engine: Engine, route: Route, text: string): FirstPart {
  const result = runRoute(route, engine, { kind: 'text', text }, localContext);
  if (result.kind === 'bytes') return { kind: 'whole', bytes: result.bytes };
  if (result.kind !== 'stream') return { kind: 'text', text: result.text ?? JSON.stringify(result.body) };
  const head: Uint8Array[] = [];
  let bytes = 0;
  const chunks = result.chunks[Symbol.iterator]();
  for (let next = chunks.next(); !next.done; next = chunks.next()) {
    head.push(next.value);
    bytes += next.value.byteLength;
    if (bytes > WHOLE_ANSWER_BYTES) {
      for (const project of engine.store.projects.values()) project.calls.readRestoredBodies();
      return { kind: 'stream', head, rest: { [Symbol.iterator]: () => chunks } };
    }
  }
  return { kind: 'stream', head, rest: [] };
}

/** Prints an error the way the CLI reports it and returns the exit code. */
export function reportError(e: unknown): number {
  if (e instanceof OperationalError) {
    // The family's entry says how: `fixture error: file:line: problem`, exit 1; `error: ...`, exit 2.
    const code: OperationalCode = (e as OperationalError).code;
    const { label, exit } = OPERATIONAL_ERRORS[code];
    say(`${paint.red(`${label}:`)} ${e.message}`);
    return exit === 'usage' ? EXIT_USAGE : EXIT_RUNTIME;
  }
  if (e instanceof TqError) {
    // The text leads with what to fix; the body printed after it is the wire body, unchanged.
    const text = e instanceof RequestSchemaError ? schemaErrorText(e.issues) : e.message;
    say(`${paint.red(`error ${e.status}`)} ${paint.dim(e.code)}: ${text}`);
    const hint = (e as TqError & { cliHint?: string }).cliHint;
    if (hint !== undefined) say(`${paint.yellow('hint:')} ${hint}`);
    say(JSON.stringify(e.body()));
    return EXIT_USAGE;
  }
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT' || err?.code === 'EACCES' || err?.code === 'EISDIR') {
    say(`${paint.red('error:')} ${err.message}`);
    return EXIT_RUNTIME;
  }
  say(`${paint.red('internal error:')} ${(err && err.stack) || String(e)}`);
  return EXIT_RUNTIME;
}
