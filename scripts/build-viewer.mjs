/**
 * Builds the trace viewer (ui/) into a directory: viewer.js (ui/src bundled by esbuild, which
 * tsx already brings), viewer.css and index.html. scripts/build.mjs calls it for dist/ui/;
 * `node scripts/build-viewer.mjs [dir]` rebuilds only the viewer (default dist/ui/), replacing
 * the directory whole. Type-checking is tsc's job (`npm run typecheck` covers ui/).
 */
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const ui = join(root, 'ui');

/** esbuild from node_modules: a dependency of tsx (a devDependency), hoisted or nested. */
function loadEsbuild() {
  const require = createRequire(import.meta.url);
  try {
    return require('esbuild');
  } catch {
    return createRequire(require.resolve('tsx/package.json'))('esbuild');
  }
}

export async function buildViewer(outDir) {
  const esbuild = loadEsbuild();
  mkdirSync(outDir, { recursive: true });
  await esbuild.build({
    entryPoints: [join(ui, 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    outfile: join(outDir, 'viewer.js'),
    logLevel: 'warning',
  });
  copyFileSync(join(ui, 'index.html'), join(outDir, 'index.html'));
  copyFileSync(join(ui, 'viewer.css'), join(outDir, 'viewer.css'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = resolve(process.argv[2] ?? join(root, 'dist', 'ui'));
  const next = `${target}.building-${process.pid}`;
  await buildViewer(next);
  rmSync(target, { recursive: true, force: true });
  renameSync(next, target);
}
