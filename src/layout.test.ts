/**
 * Two guards on how src/ is wired (docs/architecture.md, "Module ownership"):
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
