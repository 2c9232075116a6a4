/**
 * tq as a user installs it: `npm pack` (which builds dist/ through `prepare`, then leaves
 * `prepare` out of the packed manifest, so installing prints no install-script warning), the tarball
 * installed into a scratch project offline (its dependencies packed from this repository's
 * node_modules, so no registry or cache is needed), the library imported and type-checked
 * there, and the installed bin (compiled JavaScript; tsx is not installed) answering exactly
 * as the TypeScript sources do. Then bin/tq's choice between dist/ and the sources, on a
 * copied layout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_FIXTURES, createEngine, fullAccessContext, loadFixtures, runPath } from './index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * Coverage is measured on the sources only, not on the build, npm or the scratch project. Node
 * hands its own NODE_V8_COVERAGE to every child even when `env` leaves it out, so it leaves
 * this process's environment (whose own coverage was set up at start) and goes back in for the
 * runs of the sources.
 */
const COVERAGE_DIR = process.env.NODE_V8_COVERAGE;
delete process.env.NODE_V8_COVERAGE;

/**
 * The environment of a user's shell: none of the settings `npm test` gives its scripts (a
 * nested npm would take them for its own), no fixtures location (the bundled demo loads).
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
  delete env.TQ_FIXTURES;
  if (!('TQ_FROM_SOURCE' in extra)) delete env.TQ_FROM_SOURCE;
  else if (COVERAGE_DIR !== undefined) env.NODE_V8_COVERAGE = COVERAGE_DIR;
  return env;
}

function run(command: string, args: string[], options: SpawnSyncOptions) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options });
  return { code: r.status, out: String(r.stdout), err: String(r.stderr), error: r.error };
}

function mustRun(command: string, args: string[], options: SpawnSyncOptions): string {
  const r = run(command, args, options);
  assert.equal(r.code, 0, `${command} ${args.join(' ')} failed (${r.error?.message ?? r.code}):\n${r.err}`);
  return r.out;
}

/** The packages the tarball's runtime dependencies need, transitively, from the lockfile. */
function runtimeClosure(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string> }> };
  const pending = Object.keys(lock.packages[''].dependencies ?? {});
  const found = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (found.has(name)) continue;
    const entry = lock.packages[`node_modules/${name}`];
    assert.ok(entry, `${name} is not installed at node_modules/${name}`);
    found.add(name);
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return [...found].sort();
}

const DEMO_QUERY = [
  'calls', '--project', 'acme/support-bot',
  '--query-json', '{"$expr":{"$contains":{"input":{"$getField":"op_name"},"substr":{"$literal":"chat"}}}}',
  '--sort', 'started_at:desc', '--limit', '5',
];

test('the packed tarball installs offline; its bin and library answer as the sources do', { timeout: 300_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'tq-pack-'));
  try {
    // 1. Pack as a publisher would: `prepare` builds dist/ first.
    const packed = JSON.parse(mustRun('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env: userEnv() })) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed[0].files.map((f) => f.path);
    for (const needed of ['bin/tq', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/ui/index.html', 'dist/ui/viewer.js', 'dist/ui/viewer.css', 'dist/io/load-calls/line-scan.wasm', 'fixtures/calls.jsonl', 'spec-tests/cases.json', 'package.json', 'README.md', 'docs/library.md', 'docs/viewer.png']) {
      assert.ok(files.includes(needed), `${needed} missing from the tarball`);
    }
    const strays = files.filter((f) => /\.test\.|\.testing\.|^src\/|^scripts\/|^bench\/|\.ts$/.test(f) && !f.endsWith('.d.ts'));
    assert.deepEqual(strays, [], 'tests, helpers and sources stay out of the package');
    // The packed manifest has no install script (the checkout's keeps `prepare`, for npm ci).
    const packedManifest = JSON.parse(mustRun('tar', ['xzOf', join(work, packed[0].filename), 'package/package.json'], { cwd: ROOT })) as { scripts: Record<string, string> };
    const checkout = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.equal(checkout.scripts.prepare, 'node scripts/build.mjs');
    assert.deepEqual(Object.keys(packedManifest.scripts).filter((k) => /^(pre|post)?(install|prepare)$/.test(k)), []);
    assert.deepEqual(packedManifest.scripts, Object.fromEntries(Object.entries(checkout.scripts).filter(([k]) => k !== 'prepare')));

    // 2. Install it with its dependencies, each packed from node_modules: no registry needed.
    const deps = join(work, 'deps');
    mkdirSync(deps);
    const tarballs = [join(work, packed[0].filename)];
    for (const name of runtimeClosure()) {
      const tarball = join(deps, `${name.replace('/', '-')}.tgz`);
      mustRun('tar', ['czf', tarball, '-C', dirname(join(ROOT, 'node_modules', name)), basename(name)], { cwd: ROOT });
      tarballs.push(tarball);
    }
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'module' }));
    const install = run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', ...tarballs], { cwd: app, env: userEnv() });
    assert.equal(install.code, 0, install.err);
    assert.doesNotMatch(install.err, /install-scripts|tq-trace-query.*prepare/, 'installing tq warns about no install script');
    const installed = join(app, 'node_modules', PKG.name);

    // 3. The installed bin is the compiled one (there is no tsx to fall back to) and answers
    //    --version, --help, a demo query and a usage error exactly as the sources do.
    const bin = join(app, 'node_modules', '.bin', 'tq');
    const viaSource = (args: string[]) => run(process.execPath, [join(ROOT, 'bin', 'tq'), ...args], { cwd: app, env: userEnv({ TQ_FROM_SOURCE: '1' }) });
    const viaBuilt = (args: string[]) => run(bin, args, { cwd: app, env: userEnv() });
    assert.equal(viaBuilt(['--version']).out, `${PKG.version}\n`);
    for (const args of [['--version'], ['--help'], DEMO_QUERY, ['calls', '--limit', 'x', '-p', 'a/b']]) {
      const source = viaSource(args);
      const built = viaBuilt(args);
      assert.deepEqual({ code: built.code, out: built.out, err: built.err }, { code: source.code, out: source.out, err: source.err }, `tq ${args.join(' ')}`);
    }
    assert.equal(viaBuilt(DEMO_QUERY).out.trim().split('\n').length, 5);
    const help = run('npx', ['--offline', 'tq', '--help'], { cwd: app, env: userEnv() });
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^Usage: tq \[options\] \[command\]/);
    assert.match(help.out, /^ {2}calls /m);
    // The viewer ships inside the package (offline: no CDN) and tq serve finds it there.
    const viewer = mustRun(process.execPath, ['--input-type=module', '-e', `import { loadViewerAssets } from ${JSON.stringify(join(installed, 'dist', 'server', 'viewer-assets.js'))};
const a = loadViewerAssets().answer('GET', '/'); console.log(a.status, a.headers['Content-Type'], Buffer.from(a.body).toString() === ${JSON.stringify(readFileSync(join(ROOT, 'ui', 'index.html'), 'utf8'))});`], { cwd: app, env: userEnv() });
    assert.equal(viewer, '200 text/html; charset=utf-8 true\n');

    // 3b. The background compaction worker ships and runs from dist/ without tsx (issue 22 §5:
    //     it was missing, so --compact-at never compacted in the built package).
    writeFileSync(
      join(app, 'worker.mjs'),
      `import { Worker } from 'node:worker_threads';
const w = new Worker(process.argv[2], { workerData: { dir: process.argv[3], through: 0, fieldPrefix: 'svc_' } });
w.on('message', (m) => { console.log(JSON.stringify(m)); process.exit(0); });
w.on('error', (e) => { console.log('error ' + e.message); process.exit(1); });
`,
    );
    const dataDir = join(app, 'data');
    mkdirSync(dataDir);
    assert.equal(mustRun(process.execPath, ['worker.mjs', join(installed, 'dist', 'journal', 'compact-worker.mjs'), dataDir], { cwd: app, env: userEnv() }).trim(), '{"ok":true,"calls":0}');

    // 3c. So does tq serve's prepare worker (src/server/off-loop.ts): a large table write is
    //     prepared in it, not silently on the event loop for want of the worker's file.
    writeFileSync(
      join(app, 'prepare.mjs'),
      `import { OffLoop } from ${JSON.stringify(join(installed, 'dist', 'server', 'off-loop.js'))};
const offLoop = new OffLoop();
const prepared = await offLoop.prepare('/table/create', Buffer.from('{"table":{"project_id":"a/b","rows":[{"x":1.0}]}}'), 'svc_', {});
console.log(JSON.stringify(prepared.projects), prepared.derived.rows.texts.text);
await offLoop.close();
`,
    );
    assert.equal(mustRun(process.execPath, ['prepare.mjs'], { cwd: app, env: userEnv() }), '["a/b"] {"x":1.0}\n');

    // 4. The library: imported by name, the demo shipped inside it, a query by path.
    const body = '{"project_id":"acme/support-bot","filter":{"trace_roots_only":true},"sort_by":[{"field":"started_at","direction":"desc"}],"limit":3}';
    writeFileSync(
      join(app, 'use.mjs'),
      `import { BUNDLED_FIXTURES, createEngine, fullAccessContext, loadFixtures, runPath } from '${PKG.name}';
const engine = createEngine();
await loadFixtures(engine, BUNDLED_FIXTURES);
console.log(BUNDLED_FIXTURES);
for (const line of runPath(engine, '/calls/stream_query', process.argv[2], fullAccessContext('me')).lines) console.log(line);
`,
    );
    const [fixtures, ...lines] = mustRun(process.execPath, ['use.mjs', body], { cwd: app, env: userEnv() }).trim().split('\n');
    assert.equal(fixtures, join(installed, 'fixtures') + '/');
    const engine = createEngine();
    await loadFixtures(engine, BUNDLED_FIXTURES);
    const result = runPath(engine, '/calls/stream_query', body, fullAccessContext('me'));
    assert.deepEqual(lines, [...(result as { lines: Iterable<string> }).lines]);
    assert.equal(lines.length, 3);

    // 5. Its type declarations: a TypeScript program compiles against them, and they are not `any`.
    writeFileSync(
      join(app, 'use-types.ts'),
      `import { createEngine, fullAccessContext, runPath, type ConformanceCase, type RouteResult } from '${PKG.name}';
const result: RouteResult = runPath(createEngine(), '/health', '', fullAccessContext('me'));
// @ts-expect-error a RouteResult is not a number: the declarations carry real types
const wrong: number = result;
export const cases: ConformanceCase[] = [];
export { wrong };
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
        files: ['use-types.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const typed = run(process.execPath, [tsc, '-p', app], { cwd: app, env: userEnv() });
    assert.equal(typed.code, 0, typed.out + typed.err);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('bin/tq runs dist/ while it is as new as every source, the sources through tsx otherwise', { timeout: 120_000 }, () => {
  const layout = mkdtempSync(join(tmpdir(), 'tq-bin-'));
  try {
    mkdirSync(join(layout, 'bin'));
    cpSync(join(ROOT, 'bin', 'tq'), join(layout, 'bin', 'tq'));
    symlinkSync(join(ROOT, 'node_modules'), join(layout, 'node_modules'), 'dir');
    writeFileSync(join(layout, 'package.json'), JSON.stringify({ type: 'module', version: '9.9.9' }));
    mkdirSync(join(layout, 'dist', 'cli'), { recursive: true });
    const heap = "export const takeHeapFlag = (args) => ({ args, heap: undefined }); export const heapPlan = () => ({ action: 'keep' });\n";
    writeFileSync(join(layout, 'dist', 'cli', 'main.js'), "export async function main(args) { console.log('built', ...args); return 0; }\n" + heap);
    mkdirSync(join(layout, 'src', 'cli'), { recursive: true });
    // Type annotations: only tsx can run this file.
    const sourceMain = join(layout, 'src', 'cli', 'main.ts');
    writeFileSync(sourceMain, "export async function main(args: string[]): Promise<number> { console.log('source', ...args); return 3; }\n" + heap);
    const stamp = join(layout, 'dist', 'BUILT');
    const builtAt = Date.now();
    writeFileSync(stamp, `${builtAt}\n`);
    const past = new Date(builtAt - 60_000);
    utimesSync(sourceMain, past, past);
    const tq = (env: Record<string, string> = {}) => {
      const r = run(process.execPath, [join(layout, 'bin', 'tq'), 'x'], { cwd: layout, env: userEnv(env) });
      return `${r.code} ${r.out.trim()}`;
    };

    assert.equal(tq(), '0 built x');
    assert.equal(tq({ TQ_FROM_SOURCE: '1' }), '3 source x');
    const future = new Date(builtAt + 60_000);
    const testFile = join(layout, 'src', 'cli', 'main.test.ts');
    writeFileSync(testFile, '');
    utimesSync(testFile, future, future);
    assert.equal(tq(), '0 built x', 'a test file newer than the build does not make it stale');
    utimesSync(sourceMain, future, future);
    assert.equal(tq(), '3 source x', 'a source saved after the build');
    assert.equal(run(process.execPath, [join(layout, 'bin', 'tq'), '--version'], { cwd: layout, env: userEnv() }).out, '9.9.9\n');
    rmSync(join(layout, 'src'), { recursive: true });
    assert.equal(tq(), '0 built x', 'an installed package has no sources');
    rmSync(stamp);
    writeFileSync(join(layout, 'dist', 'cli', 'main.js'), "throw new Error('a build without its stamp is unfinished');\n");
    mkdirSync(join(layout, 'src', 'cli'), { recursive: true });
    writeFileSync(sourceMain, "export async function main(args: string[]): Promise<number> { console.log('source', ...args); return 3; }\n" + heap);
    assert.equal(tq(), '3 source x', 'no stamp: the build is missing or unfinished');
    rmSync(join(layout, 'node_modules'));
    const noTsx = run(process.execPath, [join(layout, 'bin', 'tq'), 'x'], { cwd: layout, env: userEnv() });
    assert.deepEqual([noTsx.code, noTsx.out, noTsx.err], [1, '', 'tq: dist/ is missing or older than src/, and tsx (a devDependency) is not installed: run npm install, or npm run build\n']);
  } finally {
    rmSync(layout, { recursive: true, force: true });
  }
});
