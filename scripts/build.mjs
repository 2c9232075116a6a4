#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (JavaScript plus .d.ts) with tsc, and the trace viewer (ui/) to dist/ui/
 * with esbuild (scripts/build-viewer.mjs); `npm ci`, `npm install` and
 * `npm pack` run it through the `prepare` script. bin/tq runs dist/ when it is at least as new
 * as every source file, so the TypeScript is not transpiled on every start.
 *
 * The output is built beside dist/ and swapped in, so a bin/tq starting meanwhile sees either
 * the old build, the new one, or none (and then runs the sources): never half a build. The
 * stamp records when the build started, so a source saved during the build counts as newer.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildViewer } from './build-viewer.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');
const next = join(root, `dist.building-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);
const started = Date.now();

// Run through node with the tsc of this repo's devDependencies, whatever PATH holds.
let tsc;
try {
  tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  console.error('build: typescript (a devDependency) is not installed: run npm install without --omit=dev');
  process.exit(1);
}
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', next], { stdio: 'inherit' });
if (r.status !== 0) {
  rmSync(next, { recursive: true, force: true });
  console.error(`build failed: tsc exited with ${r.status ?? r.signal}`);
  process.exit(1);
}
// tsc emits only compiled .ts: the plain .mjs modules (the compaction worker) are copied as
// they are, so dist/ runs without the sources (before issue 22 --compact-at never compacted there).
// Likewise the WebAssembly line scanner, committed built (scripts/build-wasm.mjs compiles it).
for (const file of ['journal/compact-worker.mjs', 'server/prepare-worker.mjs', 'io/load-calls/line-scan.wasm']) copyFileSync(join(root, 'src', file), join(next, file));
try {
  await buildViewer(join(next, 'ui'));
} catch (e) {
  rmSync(next, { recursive: true, force: true });
  console.error(`build failed: the viewer (ui/): ${e?.message ?? e}`);
  process.exit(1);
}
writeFileSync(join(next, 'BUILT'), `${started}\n`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
