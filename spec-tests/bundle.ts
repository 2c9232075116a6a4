/**
 * Bundles spec-tests/cases/*.json (in file-name order) into spec-tests/cases.json
 * (`{"version":1,"suite":{...},"cases":[...]}`), the one file other implementations' runners
 * read. The suite's identity (semver, the Weave source it encodes, the smoke list) comes from
 * spec-tests/suite.json; every bundled case carries its `grade` and `weave_source`, filled from
 * defaults when its file leaves them out, so case files stay as they were written.
 * A case file holds an array of cases, `{"cases": [...]}`, or a single case. Every case is
 * checked against case.schema.json and names must be unique across files.
 *
 * Run: node --import tsx spec-tests/bundle.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CaseGrade, ConformanceCase } from '../src/check/case.ts';
import { DEVIATES_TAG } from '../src/check/target.ts';
import { compileSchema, type JsonSchema, type SchemaCheck } from './case-schema.ts';

const SPEC_TESTS_DIR = dirname(fileURLToPath(import.meta.url));
const CASES_DIR = join(SPEC_TESTS_DIR, 'cases');
export const BUNDLE_PATH = join(SPEC_TESTS_DIR, 'cases.json');
const SCHEMA_PATH = join(SPEC_TESTS_DIR, 'case.schema.json');
const SUITE_PATH = join(SPEC_TESTS_DIR, 'suite.json');

/** The suite's identity, as spec-tests/suite.json states it. */
export interface SuiteInfo {
  /** Semver of the case set (not of tq). */
  version: string;
  /** The Weave source a case encodes unless it names its own. */
  weave_source: string;
  /** The case names `tq check --smoke` runs. */
  smoke: string[];
}

export interface CaseBundle {
  version: 1;
  suite: SuiteInfo;
  cases: ConformanceCase[];
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;

/** spec-tests/suite.json, checked: a semver version, a source, a list of smoke case names. */
export function readSuiteInfo(file = SUITE_PATH): SuiteInfo {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<SuiteInfo>;
  if (typeof raw.version !== 'string' || !SEMVER.test(raw.version)) throw new Error(`${file}: version must be a semver string, got ${JSON.stringify(raw.version)}`);
  if (typeof raw.weave_source !== 'string' || raw.weave_source === '') throw new Error(`${file}: weave_source must name the Weave source the cases encode`);
  if (!Array.isArray(raw.smoke) || !raw.smoke.every((n) => typeof n === 'string')) throw new Error(`${file}: smoke must be a list of case names`);
  return { version: raw.version, weave_source: raw.weave_source, smoke: raw.smoke };
}

/** A case's grade when its file states none: from the tags it already carries. */
export function defaultGrade(tags: readonly string[]): CaseGrade {
  if (tags.includes(DEVIATES_TAG)) return 'deviates-from-production';
  if (tags.includes('decision')) return 'should';
  return 'must';
}

function loadCaseSchema(): JsonSchema {
  return JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as JsonSchema;
}

/** case.schema.json compiled: a case's violations, as `<path>: <problem>`. */
export function caseSchemaCheck(): SchemaCheck {
  return compileSchema(loadCaseSchema());
}

function casesOfFile(file: string, parsed: unknown): unknown[] {
  if (Array.isArray(parsed)) return parsed;
  if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { cases?: unknown }).cases)) {
    return (parsed as { cases: unknown[] }).cases;
  }
  if (typeof parsed === 'object' && parsed !== null && 'name' in parsed) return [parsed];
  throw new Error(`${file}: expected an array of cases, {"cases": [...]}, or one case`);
}

/** Reads, validates and concatenates every case file; throws listing every problem found. */
export function bundleCases(dir = CASES_DIR, suite = readSuiteInfo()): CaseBundle {
  const check = caseSchemaCheck();
  const problems: string[] = [];
  const cases: ConformanceCase[] = [];
  const seen = new Map<string, string>();
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (e) {
      problems.push(`${file}: not JSON (${e instanceof Error ? e.message : String(e)})`);
      continue;
    }
    casesOfFile(file, parsed).forEach((c, i) => {
      const name = typeof c === 'object' && c !== null && typeof (c as { name?: unknown }).name === 'string' ? (c as { name: string }).name : `#${i}`;
      for (const e of check(c)) problems.push(`${file} ${name}: ${e}`);
      const previous = seen.get(name);
      if (previous !== undefined) problems.push(`${file} ${name}: duplicate name (also in ${previous})`);
      seen.set(name, file);
      const kase = c as ConformanceCase;
      const grade = kase.grade ?? defaultGrade(kase.tags ?? []);
      if (grade === 'deviates-from-production' && !(kase.tags ?? []).includes(DEVIATES_TAG)) problems.push(`${file} ${name}: grade deviates-from-production needs the tag '${DEVIATES_TAG}' too (--skip-tags relies on it)`);
      cases.push({ ...kase, grade, weave_source: kase.weave_source ?? suite.weave_source });
    });
  }
  for (const name of suite.smoke) if (!seen.has(name)) problems.push(`suite.json smoke: no case is named '${name}'`);
  if (problems.length > 0) throw new Error(`invalid case files:\n  ${problems.join('\n  ')}`);
  return { version: 1, suite, cases };
}

/** The bundle as written to disk (two-space JSON, trailing newline, non-ASCII kept). */
export function bundleText(bundle: CaseBundle): string {
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bundle = bundleCases();
  writeFileSync(BUNDLE_PATH, bundleText(bundle));
  const byArea = new Map<string, number>();
  for (const c of bundle.cases) {
    const area = c.name.split('-')[0];
    byArea.set(area, (byArea.get(area) ?? 0) + 1);
  }
  const areas = [...byArea].map(([a, n]) => `${a} ${n}`).join(', ');
  console.log(`wrote ${BUNDLE_PATH}: ${bundle.cases.length} cases (${areas})`);
}
