/**
 * Notices for answers that are empty because a name matched nothing. The answer itself stays
 * what the server would send (no lines, exit 0), but a typo in a project id or table digest
 * should not pass for "no data": on a terminal, or with --verbose, stderr names what exists,
 * the closest names first.
 */
import type { Command } from 'commander';
import type { Engine } from '../api/types.ts';
import { stderrIsTerminal } from './tty.ts';
import { bareOpNameNotices } from './hints.ts';

/** How many existing names a notice lists. */
const LISTED = 5;

/** Levenshtein distance, over at most the first 200 characters of each (names are short). */
export function editDistance(a: string, b: string): number {
  const x = a.slice(0, 200), y = b.slice(0, 200);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[y.length];
}

/** `names` closest to `wanted` first (ties by name), the first few, `…` when there are more. */
export function closestNames(wanted: string, names: Iterable<string>): string {
  const ranked = [...names]
    .map((name) => ({ name, d: editDistance(wanted, name) }))
    .sort((p, q) => p.d - q.d || (p.name < q.name ? -1 : p.name > q.name ? 1 : 0))
    .map((r) => r.name);
  if (ranked.length === 0) return 'none';
  return ranked.slice(0, LISTED).join(', ') + (ranked.length > LISTED ? ', …' : '');
}

/** What an unknown project or table digest in `body` deserves as a notice, or undefined. */
export function missingDataNotice(engine: Engine, body: Record<string, unknown>): string | undefined {
  const projectId = body.project_id;
  if (typeof projectId !== 'string') return undefined;
  const project = engine.store.project(projectId);
  if (!project) return `tq: no project "${projectId}" in the data (projects: ${closestNames(projectId, engine.store.projects.keys())})`;
  const digest = body.digest;
  if (typeof digest === 'string' && !project.tables.has(digest)) {
    return `tq: no table "${digest}" in project ${projectId} (tables: ${closestNames(digest, project.tables.keys())})`;
  }
  return undefined;
}

/** `--verbose`, for the commands that answer a query. */
export function verboseOption(cmd: Command): Command {
  return cmd.option('--verbose', 'name the existing projects/tables on stderr when the ones asked for are unknown (default on a terminal)');
}

/** Prints the notice for the request `text` (already accepted by the route), when stderr is a terminal or `verbose` is set. */
export function noticeMissingData(engine: Engine, text: string, verbose: boolean | undefined, write: (line: string) => void): void {
  if (!verbose && !stderrIsTerminal()) return;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return; // lexemes JSON.parse refuses (NaN); the route read it, a notice is not worth more
  }
  const notice = missingDataNotice(engine, body);
  if (notice !== undefined) write(notice);
  for (const line of bareOpNameNotices(engine, body)) write(line);
}
