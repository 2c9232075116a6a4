/**
 * Three guards on how src/ is wired (docs/architecture.md, "Module ownership"):
 *  - layers: each area of src/ (a folder, or a file at the top) imports only the areas its row
 *    of LAYERS allows, and the rows form an order (a lower row never imports a higher one);
 *  - no import cycles: a module never reaches itself through its imports, type-only imports
 *    included (a cycle is a layering mistake even when it happens to load);
 *  - test helpers follow one convention: a module that only tests use is a `*.testing.ts`
 *    (left out of dist/ and the package), and production code never imports one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative imports of a module (static, dynamic and re-exports), resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:\bfrom|\bimport\(?)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.add(resolve(dirname(file), m[1]));
  return [...found];
}

const isTest = (f: string) => f.endsWith('.test.ts');
const isHelper = (f: string) => f.endsWith('.testing.ts');
const rel = (f: string) => relative(ROOT, f);

/** Every cycle among the given modules, each as the path that closes it (Tarjan's SCCs, then one cycle per component). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components;
}

/**
 * The layers of src/, lowest first: each area with the areas it may import (its allow-list;
 * an area may always import its own modules). Tests and *.testing.ts helpers are outside
 * the layers: they may reach anything. A new import across areas either fits a row or is a
 * design question, answered here in review.
 */
const LAYERS: ReadonlyArray<readonly [area: string, mayImport: readonly string[]]> = [
  // Pure values and rules: JSON, datetimes, digests, the error catalogue, ClickHouse value semantics.
  ['core', []],
  ['version.ts', []],
  ['gen', []],
  // The in-memory store.
  ['store', ['core']],
  // The route contract every route module implements, and the engine (store + options).
  ['api', ['core', 'store']],
  ['engine.ts', ['core', 'store', 'api']],
  // Reads, then writes (which read through query: objects' versions, the ORM filter of purges).
  ['query', ['core', 'store', 'api']],
  ['write', ['core', 'store', 'api', 'query']],
  // OTLP ingest: converts to call writes.
  ['otel', ['core', 'api', 'write']],
  // Fixture records into the store, through the writers (and the OTLP conversion, a registry entry).
  ['load', ['core', 'store', 'api', 'write', 'otel']],
  // The composition root: every route in one table, and running one by its path.
  ['routes.ts', ['api', 'query', 'write', 'otel', 'version.ts']],
  ['run-path.ts', ['core', 'api', 'routes.ts']],
  // Front ends and their I/O: files, the journal, the HTTP server, the conformance runner, the CLI.
  ['io', ['core', 'store', 'api', 'load', 'version.ts']],
  ['journal', ['core', 'store', 'api', 'engine.ts', 'routes.ts', 'io']],
  ['check', ['core', 'api', 'query', 'otel', 'engine.ts', 'routes.ts']],
  ['server', ['core', 'api', 'write', 'engine.ts', 'routes.ts', 'io', 'journal', 'check']],
  ['cli', ['core', 'store', 'api', 'query', 'load', 'gen', 'engine.ts', 'routes.ts', 'io', 'journal', 'check', 'server', 'version.ts']],
  ['index.ts', ['core', 'store', 'api', 'engine.ts', 'routes.ts', 'run-path.ts', 'io', 'check', 'server', 'version.ts']],
];

/** The area of a module: its folder under src/, or its own name at the top. */
const areaOf = (file: string) => relative(SRC, file).split('/')[0];

/** Every import across areas that LAYERS does not allow, as `from -> to`. */
function layerViolations(modules: readonly string[], importsOfModule: (file: string) => string[] = importsOf): string[] {
  const allowed = new Map(LAYERS.map(([area, may]) => [area, new Set(may)]));
  const problems: string[] = [];
  for (const file of modules) {
    const from = areaOf(file);
    if (!allowed.has(from)) {
      problems.push(`${rel(file)}: area ${from} has no row in LAYERS`);
      continue;
    }
    for (const target of importsOfModule(file)) {
      if (!target.startsWith(SRC + '/')) continue;
      const to = areaOf(target);
      if (to !== from && !allowed.get(from)!.has(to)) problems.push(`${rel(file)} -> ${rel(target)} (${from} may not import ${to})`);
    }
  }
  return problems;
}

test('each area of src/ imports only what its row of LAYERS allows', () => {
  assert.deepEqual(layerViolations(files(SRC).filter((f) => !isTest(f) && !isHelper(f))), []);
});

test('LAYERS is an order: every area allows only areas of earlier rows, each named once', () => {
  const seen = new Set<string>();
  for (const [area, may] of LAYERS) {
    for (const lower of may) assert.ok(seen.has(lower), `${area} may import ${lower}, which is not an earlier row`);
    assert.ok(!seen.has(area), `${area} has two rows`);
    seen.add(area);
  }
  const areas = new Set(files(SRC).map(areaOf));
  assert.deepEqual([...seen].filter((a) => !areas.has(a)), [], 'rows for areas that do not exist');
});

test('the layer check finds an upward import, an unlisted area, and lets a row\'s own and allowed imports by', () => {
  // store/start-order.ts once read query/ch/values.ts, and api/run-path.ts the route table.
  const graph = new Map<string, string[]>([
    [join(SRC, 'store', 'start-order.ts'), [join(SRC, 'query', 'ch', 'values.ts'), join(SRC, 'store', 'call-table.ts'), join(SRC, 'core', 'ch', 'values.ts')]],
    [join(SRC, 'api', 'run-path.ts'), [join(SRC, 'routes.ts')]],
    [join(SRC, 'newarea', 'x.ts'), []],
  ]);
  assert.deepEqual(layerViolations([...graph.keys()], (f) => graph.get(f)!), [
    'src/store/start-order.ts -> src/query/ch/values.ts (store may not import query)',
    'src/api/run-path.ts -> src/routes.ts (api may not import routes.ts)',
    'src/newarea/x.ts: area newarea has no row in LAYERS',
  ]);
});

test('src/ has no import cycles', () => {
  const graph = new Map(files(SRC).filter((f) => !isTest(f)).map((f) => [f, importsOf(f)]));
  assert.deepEqual(cycles(graph).map((c) => c.map(rel)), []);
});

test('the cycle finder finds a cycle, and none in a chain', () => {
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']]);
  assert.deepEqual(cycles(new Map([['a', ['a']]])), [['a']]);
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), []);
});

test('test helpers are *.testing.ts, only tests use them, and every module only tests use is one', () => {
  const all = [...files(SRC), ...files(join(ROOT, 'spec-tests')), ...files(join(ROOT, 'bench')), ...files(join(ROOT, 'bin'))];
  const users = new Map<string, string[]>();
  for (const f of all) for (const target of importsOf(f)) users.set(target, [...(users.get(target) ?? []), f]);
  // Loaded by path, not by an import: the CLI (bin/tq) and the library entry (package.json).
  const entries = new Set([join(SRC, 'cli', 'main.ts'), join(SRC, 'index.ts')]);
  const problems: string[] = [];
  for (const f of files(SRC)) {
    if (isTest(f) || entries.has(f)) continue;
    const by = users.get(f) ?? [];
    const production = by.filter((u) => !isTest(u) && !isHelper(u));
    if (isHelper(f) && production.length > 0) problems.push(`${rel(f)} is a test helper imported by ${production.map(rel).join(', ')}`);
    if (!isHelper(f) && by.length > 0 && production.length === 0) problems.push(`${rel(f)} is used only by tests: name it *.testing.ts`);
  }
  assert.deepEqual(problems, []);
});
