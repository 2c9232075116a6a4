#!/usr/bin/env node
/**
 * Compiles the WebAssembly calls-line scanner (wasm/line-scan.ts, AssemblyScript) to
 * src/io/load-calls/line-scan.wasm, which is committed: the TypeScript build (build.mjs) only
 * copies it into dist/, so installing tq needs no compiler. Run this after editing the
 * scanner's source; src/io/load-calls/wasm-line-scan.test.ts rebuilds it and fails when the
 * committed bytes differ from what the source compiles to (the version of assemblyscript is
 * pinned exactly in package.json, so the output is reproducible).
 *
 *   node scripts/build-wasm.mjs [OUT]   (OUT: where to write it instead, for that test)
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = process.argv[2] ?? join(root, 'src', 'io', 'load-calls', 'line-scan.wasm');
let asc;
try {
  asc = join(dirname(createRequire(import.meta.url).resolve('assemblyscript/package.json')), 'bin', 'asc.js');
} catch {
  console.error('build-wasm: assemblyscript (a devDependency) is not installed: run npm install without --omit=dev');
  process.exit(1);
}
// No runtime (the scanner allocates nothing), no abort import, SIMD on; the module's own data
// lives below 65536 (see the memory map in wasm/line-scan.ts).
const flags = ['-O3', '--noAssert', '--runtime', 'stub', '--use', 'abort=', '--enable', 'simd', '--memoryBase', '8192', '--initialMemory', '2'];
const r = spawnSync(process.execPath, [asc, join(root, 'wasm', 'line-scan.ts'), '-o', out, ...flags], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`build-wasm: asc exited with ${r.status ?? r.signal}`);
  process.exit(1);
}
