/**
 * The semantics reference is self-contained: comments and cases cite rules of
 * docs/semantics.md (`semantics.md#<id>`), never documents a clone does not have, and every
 * cited id is a rule the document defines. Each rule names its production source and cases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(ROOT, 'docs', 'semantics.md');
// The code, and the documents a reader follows (README.md, docs/): all cite in-repo rules only.
const SCANNED = ['src', 'bench', 'spec-tests', 'docs', 'README.md'];

// Old citation forms: the out-of-repo spec documents by name, their numbered sections ("§5.4",
// not an RFC's or an issue's), and gotcha numbers ("G17", "gotcha 3").
const OLD_DOC_NAMES = ['DECISIONS', 'calls-semantics', 'threads-table-semantics', 'seed-interface', 'weave-ts-sdk'];
const OLD_CITATION = new RegExp(
  String.raw`\b(?:${OLD_DOC_NAMES.join('|')})\b|threads-table §|(?<!(?:RFC|[Ii]ssue) #?\d+ )§ ?\d+(?:\.\d+)*|\bG\d+\b|\bgotchas? G?\d+`,
  'g',
);
const CITED = /semantics\.md#([A-Za-z0-9_-]+)/g;

/** Every old-form citation in `text`, with its line number. */
function oldCitations(text: string): Array<{ line: number; text: string }> {
  return [...text.matchAll(OLD_CITATION)].map((m) => ({ line: text.slice(0, m.index).split('\n').length, text: m[0] }));
}

/** The ids docs/semantics.md defines: rule headings `#### id` and section anchors `<a id="id">`. */
function definedAnchors(markdown: string): string[] {
  const rules = [...markdown.matchAll(/^#### ([a-z0-9-]+)$/gm)].map((m) => m[1]);
  const sections = [...markdown.matchAll(/<a id="([a-z0-9-]+)"><\/a>/g)].map((m) => m[1]);
  return [...rules, ...sections];
}

function files(dir: string): string[] {
  if (!statSync(dir).isDirectory()) return [dir];
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

const doc = readFileSync(DOC, 'utf8');
const defined = new Set(definedAnchors(doc));

test('the detectors find old citation forms and leave new ones and RFC sections alone', () => {
  const decisions = OLD_DOC_NAMES[0];
  const sample = [
    `(${decisions} §17, §19)`,
    `(calls-${'semantics'} §5.4)`,
    `bare (§3.4) and gotcha list (${'G'}8/${'G'}9), ${'gotcha'} 17, ${'gotchas'} 3, 4`,
    `(threads-table §7)`,
    'RFC 2046 §5.1.1, issue 14 §4 and Issue #12 §2 are other references; semantics.md#calls-json-read is new',
  ].join('\n');
  assert.deepEqual(oldCitations(sample), [
    { line: 1, text: decisions },
    { line: 1, text: '§17' },
    { line: 1, text: '§19' },
    { line: 2, text: 'calls-semantics' },
    { line: 2, text: '§5.4' },
    { line: 3, text: '§3.4' },
    { line: 3, text: 'G8' },
    { line: 3, text: 'G9' },
    { line: 3, text: 'gotcha 17' },
    { line: 3, text: 'gotchas 3' },
    { line: 4, text: 'threads-table §' },
  ]);
  assert.deepEqual(definedAnchors('#### a-rule\ntext\n<a id="area"></a>\n## Area\n#### Not an id\n'), ['a-rule', 'area']);
});

test('src/, bench/, spec-tests/, docs/ and the README cite only rules that docs/semantics.md defines', () => {
  const old: string[] = [];
  const undefinedIds: string[] = [];
  // This file holds old forms as detector samples (rewrite-citations skips it as well).
  const self = fileURLToPath(import.meta.url);
  const textFile = (f: string) => !/\.(png|jpe?g|gz|wasm)$/.test(f);
  for (const file of SCANNED.flatMap((d) => files(join(ROOT, d))).filter((f) => f !== self && textFile(f))) {
    const text = readFileSync(file, 'utf8');
    const name = relative(ROOT, file);
    for (const c of oldCitations(text)) old.push(`${name}:${c.line}: ${c.text}`);
    for (const m of text.matchAll(CITED)) if (!defined.has(m[1])) undefinedIds.push(`${name}: semantics.md#${m[1]}`);
  }
  assert.deepEqual(old, [], 'cite docs/semantics.md#<id> instead of the out-of-repo spec documents');
  assert.deepEqual(undefinedIds, [], 'add the rule to docs/semantics.md or fix the id');
});

test('docs/semantics.md: ids are unique, links resolve, each rule names its production source and cases', () => {
  const ids = definedAnchors(doc);
  assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), [], 'duplicate ids');
  const links = [...doc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]).filter((id) => !defined.has(id));
  assert.deepEqual(links, [], 'links to undefined ids');

  const caseNames = new Set<string>();
  for (const file of readdirSync(join(ROOT, 'spec-tests', 'cases')).filter((f) => f.endsWith('.json'))) {
    const parsed = JSON.parse(readFileSync(join(ROOT, 'spec-tests', 'cases', file), 'utf8')) as unknown;
    const cases = (Array.isArray(parsed) ? parsed : ((parsed as { cases?: unknown[] }).cases ?? [parsed])) as Array<{ name: string }>;
    for (const c of cases) caseNames.add(c.name);
  }
  const problems: string[] = [];
  for (const rule of doc.split(/^(?=#### )/m).slice(1)) {
    const id = /^#### (\S+)/.exec(rule)![1];
    if (!/^- \*\*Production:\*\*/m.test(rule)) problems.push(`${id}: no **Production:** line`);
    const cases = /^- \*\*Cases(?: \(\d+\))?:\*\* (.*)$/m.exec(rule);
    if (!cases) problems.push(`${id}: no Cases line`);
    else for (const m of cases[1].matchAll(/`([a-z0-9][a-z0-9._-]*)`/g)) if (!caseNames.has(m[1])) problems.push(`${id}: unknown case ${m[1]}`);
  }
  assert.deepEqual(problems, []);
});
