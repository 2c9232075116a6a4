/**
 * The conformance corpus as shipped: spec-tests/cases.json (every file of spec-tests/cases
 * bundled by spec-tests/bundle.ts, with the suite's identity from spec-tests/suite.json), read
 * by `tq check` and by library users.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConformanceCase } from './case.ts';

export const BUNDLED_CASES_FILE = fileURLToPath(new URL('../../spec-tests/cases.json', import.meta.url));

/** The suite's identity as bundled: its semver, the Weave source it encodes, its smoke cases. */
interface SuiteIdentity {
  version: string;
  weave_source: string;
  smoke: string[];
}

export interface Suite extends SuiteIdentity {
  cases: ConformanceCase[];
}

/** The cases and identity of a bundled corpus file (default: tq's own). */
export function loadSuite(file = BUNDLED_CASES_FILE): Suite {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { cases?: ConformanceCase[]; suite?: Partial<SuiteIdentity> };
  if (!Array.isArray(doc.cases)) throw new Error(`${file} holds no "cases" list`);
  const suite = doc.suite ?? {};
  return { version: suite.version ?? 'unversioned', weave_source: suite.weave_source ?? 'unknown', smoke: suite.smoke ?? [], cases: doc.cases };
}

/** The cases of a bundled corpus file (default: tq's own). */
export function loadCases(file = BUNDLED_CASES_FILE): ConformanceCase[] {
  return loadSuite(file).cases;
}
