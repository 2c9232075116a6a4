// `npm run test:unit`: the edit loop's lane. Every test file that runs inside one process (no
// child process, server, worker thread, browser or bench) is imported into this single Node
// process, so the lane pays Node's and tsx's start-up once instead of once per file. `npm test`
// still runs every file, each in its own process, under coverage: that is what CI runs.
//
// A file is left out when it, or a `*.testing.ts` helper it imports, mentions one of OUT_OF_PROCESS,
// or when it is one of the SLOW sweeps; a new test file joins the lane by itself when it needs none
// of them.
//
//   node --import tsx scripts/test-unit.mjs [--list] [FILTER...]
//     --list   print the lane's files (and the files left out, with the reason) and exit
//     FILTER   only files whose path contains one of the words
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIRS = ['src', 'spec-tests', 'bench'];

/** What makes a test leave the process or open a socket, and the reason it is printed with. */
const OUT_OF_PROCESS = [
  [/node:child_process|\bspawn(Sync)?\(|execFile|TQ_BIN|run-tq\.testing/, 'spawns a process'],
  [/node:worker_threads|parallelMinBytes/, 'starts worker threads'],
  [/node:https?'|node:net'|\.listen\(|createServer|\bserve\(|startServer|serving\.testing|journal\.testing|proxy\.testing/, 'starts a server'],
  [/playwright/, 'drives a browser'],
  [/runBench|from '\.\/run\.ts'/, 'runs the bench'],
];

/**
 * Files that run in-process but take seconds: property sweeps over generated data, every route
 * at every depth, the corpus run two more ways. Each took 2 s or more of a loaded 2-core
 * machine's time in this lane; together they were three quarters of it. `npm test` runs them.
 */
const SLOW = new Set([
  'src/api/hostile-input.test.ts',
  'src/query/threads/py-float-bytes.test.ts',
  'src/load/scanned-call.test.ts',
  'spec-tests/lazy-kinds.test.ts',
  'spec-tests/kind-images.test.ts',
  'src/store/snapshot.test.ts',
  'spec-tests/cli-path.test.ts',
  'src/core/json/byte-spans.test.ts',
  'src/query/calls/order.test.ts',
  'src/core/echo.test.ts',
  'src/query/table/sort-candidates.test.ts',
  'spec-tests/case-schema.test.ts',
  'src/core/json/path-extract.test.ts',
]);

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The file's text and that of the local `*.testing.ts` helpers it imports, transitively. */
function textWithHelpers(file, seen = new Set()) {
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let all = text;
  for (const m of text.matchAll(/from '(\.[^']*\.testing\.ts)'/g)) all += '\n' + textWithHelpers(resolve(dirname(file), m[1]), seen);
  return all;
}

function outOfProcessReason(file) {
  if (SLOW.has(relative(ROOT, file))) return 'slow: npm test runs it';
  const text = textWithHelpers(file);
  for (const [pattern, reason] of OUT_OF_PROCESS) if (pattern.test(text)) return reason;
  return null;
}

const args = process.argv.slice(2);
const list = args.includes('--list');
const filters = args.filter((a) => a !== '--list');
const all = DIRS.flatMap((d) => testFiles(join(ROOT, d))).sort();
const lane = [];
const left = [];
for (const file of all) {
  if (filters.length > 0 && !filters.some((f) => relative(ROOT, file).includes(f))) continue;
  const reason = outOfProcessReason(file);
  if (reason === null) lane.push(file);
  else left.push([file, reason]);
}

if (list) {
  for (const file of lane) console.log(relative(ROOT, file));
  for (const [file, reason] of left) console.log(`# left out: ${relative(ROOT, file)} (${reason})`);
} else {
  // Tests register with node:test as each file is imported and run once all are in.
  for (const file of lane) await import(pathToFileURL(file).href);
}
