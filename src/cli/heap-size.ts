/**
 * V8's heap limit for a data command, sized to the data and the machine (docs/loading.md). Node's
 * default limit (about 4 GiB on a 64-bit machine with enough memory) caps a load near 11–12M
 * calls while the store needs about 1.1 KB of heap per call; bin/tq asks heapPlan before it
 * runs a command, and when the data needs more than the running limit, runs itself again with
 * `--max-old-space-size` (as bench/run.ts does). `--heap MB` (or TQ_HEAP=MB) sets the limit
 * exactly; `--heap auto` is the default; a `--max-old-space-size` already given to node
 * (NODE_OPTIONS or node's own arguments) is the user's choice and is kept.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The commands that load data (the others keep node's limit). */
const DATA_COMMANDS = new Set(['calls', 'table', 'threads', 'serve', 'ls', 'dump', 'load', 'count', 'objs']);

/** Heap per byte of JSONL (1.07–1.12 KB of heap per call of about 1.15 KB), with margin. */
const HEAP_PER_BYTE = 1.1;
/** A .gz file is counted as this many times its size (JSON Lines of traces compress about 8–10x). */
const GZIP_RATIO = 10;
/** Room beyond the data: query caches, a request, the collector's slack. */
const HEADROOM_MB = 1024;
/** What is left to the rest of the machine: the limit never goes past this share of memory. */
const MEMORY_SHARE = 0.9;

export interface HeapInputs {
  /** The command's arguments (without the --heap flag). */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `--heap` (or TQ_HEAP): `auto`, or a number of MB. */
  heap: string | undefined;
  /** The running heap limit and the machine's memory, in MB. */
  limitMb: number;
  totalMemMb: number;
  /** node's own arguments and NODE_OPTIONS (a --max-old-space-size there is kept). */
  nodeArgs: readonly string[];
}

export type HeapPlan = { action: 'keep'; reason: string } | { action: 'run-with'; mb: number; reason: string } | { action: 'usage-error'; message: string };

const MB = 1024 * 1024;

/** Takes `--heap X` / `--heap=X` out of the arguments (bin/tq handles it; commands never see it). */
export function takeHeapFlag(args: readonly string[]): { args: string[]; heap: string | undefined } {
  const rest: string[] = [];
  let heap: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (args[i] === '--heap') heap = args[++i] ?? '';
    else if (args[i].startsWith('--heap=')) heap = args[i].slice('--heap='.length);
    else rest.push(args[i]);
  }
  return { args: rest, heap };
}

/** The value of `--name X` / `--name=X` in args. */
function optionValue(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(name + '=')) return args[i].slice(name.length + 1);
  }
  return undefined;
}

/** Bytes of a fixture file or of every file directly in a directory (.gz counted as uncompressed). */
function dataBytes(path: string): number {
  if (!existsSync(path)) return 0;
  const one = (file: string) => {
    const s = statSync(file);
    return s.isFile() ? s.size * (file.endsWith('.gz') ? GZIP_RATIO : 1) : 0;
  };
  if (!statSync(path).isDirectory()) return one(path);
  return readdirSync(path).reduce((n, name) => n + one(join(path, name)), 0);
}

/** Where the command's data is (what loadEngine and `tq load --check` would read). */
function dataPath(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const explicit = optionValue(args, '--data') ?? optionValue(args, '--fixtures');
  if (explicit !== undefined) return resolve(cwd, explicit);
  if (args[0] === 'load') {
    const positional = args.slice(1).find((a) => !a.startsWith('-'));
    if (positional !== undefined) return resolve(cwd, positional);
  }
  if (env.TQ_FIXTURES) return resolve(cwd, env.TQ_FIXTURES);
  const local = join(cwd, 'fixtures');
  return existsSync(local) ? local : undefined; // else the bundled demo: small
}

/** The heap limit a command needs, and whether to run again with it. */
export function heapPlan(i: HeapInputs): HeapPlan {
  const given = i.heap ?? (i.env.TQ_HEAP || undefined);
  const set = given === undefined || given === 'auto' ? undefined : given;
  if (set !== undefined && !/^[1-9]\d{0,7}$/.test(set)) return { action: 'usage-error', message: `--heap: a number of MB or auto, got '${set}'` };
  if (set !== undefined) {
    const mb = Number(set);
    return Math.abs(mb - i.limitMb) <= i.limitMb * 0.02 ? { action: 'keep', reason: `the limit is already ${set} MB` } : { action: 'run-with', mb, reason: `--heap ${set}` };
  }
  if (i.nodeArgs.some((a) => /^--max[-_]old[-_]space[-_]size\b/.test(a))) return { action: 'keep', reason: 'node was given --max-old-space-size' };
  if (!DATA_COMMANDS.has(i.args[0] ?? '')) return { action: 'keep', reason: 'not a data command' };
  const path = dataPath(i.args, i.env, i.cwd);
  if (path === undefined) return { action: 'keep', reason: 'the bundled demo data' };
  const needMb = Math.ceil((dataBytes(path) * HEAP_PER_BYTE) / MB) + HEADROOM_MB;
  const mb = Math.min(needMb, Math.floor(i.totalMemMb * MEMORY_SHARE));
  if (mb <= i.limitMb) return { action: 'keep', reason: `${needMb} MB needed, ${Math.round(i.limitMb)} MB allowed` };
  return { action: 'run-with', mb, reason: `${needMb} MB needed for ${path}, ${Math.round(i.limitMb)} MB allowed` };
}
