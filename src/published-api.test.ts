/**
 * The package's declared API is a decision, not a by-product (issue 24 §5): the declarations
 * are built as `npm pack` builds them (tsconfig.build.json, stripInternal), and
 *  - the names dist/index.d.ts exports are exactly the table of docs/library.md;
 *  - the declaration files those names reach are exactly PUBLISHED_MODULES, so a member that
 *    starts to expose an internal module (the store's classes, the query engine) fails here;
 *  - `Store` is published as its constructor and counts() alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './io/temp-dir.testing.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The declaration files the entry reaches through its imports and re-exports. */
const PUBLISHED_MODULES = [
  'api/context.d.ts', 'api/route-path.d.ts', 'api/run-route.d.ts', 'api/types.d.ts',
  'check/case.d.ts', 'check/corpus.d.ts', 'check/engine-target.d.ts', 'check/http-target.d.ts', 'check/runner.d.ts', 'check/target.d.ts',
  // FixtureError is one of the coded operational errors (core/operational-errors.ts).
  'core/errors.d.ts', 'core/operational-errors.d.ts', 'engine.d.ts', 'index.d.ts', 'io/lines.d.ts', 'io/load-fixtures.d.ts', 'load/fixture-kinds.d.ts',
  'routes.d.ts', 'run-path.d.ts', 'server/basic-auth.d.ts', 'server/embedded.d.ts', 'store/store.d.ts', 'version.d.ts',
];

/** The names an `export { a, type B } from '...'` / `export type { ... }` list declares. */
function exportedNames(declarations: string): string[] {
  const names: string[] = [];
  for (const m of declarations.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const item of m[1].split(',')) {
      const name = item.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!.trim();
      if (name) names.push(name);
    }
  }
  for (const m of declarations.matchAll(/^export declare (?:const|function|class) (\w+)/gm)) names.push(m[1]);
  return names.sort();
}

/** The relative modules a declaration file imports or re-exports, as .d.ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\()\s*['"](\.[^'"]+)['"]/g)].map((m) => join(dirname(file), m[1].replace(/\.(ts|js)$/, '') + '.d.ts'));
}

function reachable(root: string): string[] {
  const seen = new Set<string>();
  const pending = [join(root, 'index.d.ts')];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    assert.ok(existsSync(file), `${relative(root, file)} is imported but was not emitted`);
    seen.add(file);
    pending.push(...importsOf(file));
  }
  return [...seen].map((f) => relative(root, f)).sort();
}

/** The first column of docs/library.md's table of the published API. */
function documentedNames(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The published API'));
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]).sort();
}

test('exportedNames reads export lists, type-only items and renames', () => {
  assert.deepEqual(exportedNames("export { a, type B, c as d } from './x.ts';\nexport type { E } from './y.ts';\nexport declare function f(): void;\n"), ['B', 'E', 'a', 'd', 'f']);
});

test('the declared API is what docs/library.md lists, and reaches no internal module', { timeout: 120_000 }, () => {
  const out = tempDir('tq-dts-');
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--emitDeclarationOnly', '--outDir', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);

  const index = readFileSync(join(out, 'index.d.ts'), 'utf8');
  const names = exportedNames(index);
  assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), [], 'a name exported twice');
  assert.deepEqual(names, documentedNames(), 'dist/index.d.ts exports exactly the names of docs/library.md');

  assert.deepEqual(reachable(out), [...PUBLISHED_MODULES].sort());

  const store = readFileSync(join(out, 'store', 'store.d.ts'), 'utf8');
  const storeClass = store.slice(store.indexOf('export declare class Store'));
  const members = [...storeClass.matchAll(/^ {4}(?:readonly )?(\w+)[(:?]/gm)].map((m) => m[1]);
  assert.deepEqual(members, ['counts'], 'Store is published as its constructor and counts()');
});
