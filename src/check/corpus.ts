/**
 * The conformance corpus as shipped: spec-tests/cases.json (every file of spec-tests/cases
 * bundled by spec-tests/bundle.ts), read by `tq check` and by library users.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConformanceCase } from './case.ts';

export const BUNDLED_CASES_FILE = fileURLToPath(new URL('../../spec-tests/cases.json', import.meta.url));

/** The cases of a bundled corpus file (default: tq's own). */
export function loadCases(file = BUNDLED_CASES_FILE): ConformanceCase[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { cases?: ConformanceCase[] };
  if (!Array.isArray(doc.cases)) throw new Error(`${file} holds no "cases" list`);
  return doc.cases;
}
