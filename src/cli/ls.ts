/**
 * `tq ls`: what the data holds, so a query can name something that exists. Without
 * `--project`, one entry per project (live calls, threads, tables, objects); with it, the
 * project's tables (digest, rows), objects (id, live versions) and threads (id, live turns).
 * Aligned text for a person, JSON Lines with `--json`. The text ends with footnotes when its
 * counts differ from what other commands show: deleted calls are not counted (`tq load
 * --check` counts every record loaded), and a thread with no finished turn is counted here
 * but left out by `tq threads` (semantics.md#threads).
 */
import { Command } from 'commander';
import type { Store } from '../store/store.ts';
import { byName, listProjects, liveCalls, threadTurns, type ProjectSummary } from '../query/projects/list.ts';
import type { ProjectStore } from '../store/project.ts';
import { dataOptions, loadEngine, parsePrefix, UsageError, writeLines } from './common.ts';
import { closestNames } from './notice.ts';

export { listProjects, type ProjectSummary };

export type ProjectEntry =
  | { kind: 'table'; digest: string; rows: number }
  | { kind: 'object'; object_id: string; versions: number }
  | { kind: 'thread'; thread_id: string; turns: number };

/** Threads with a live turn none of whose live turns has ended (tq threads leaves them out). */
function unfinishedThreads(p: ProjectStore): number {
  let n = 0;
  for (const [, rows] of p.calls.turnsByThread) {
    const live = rows.filter((row) => !p.calls.isDeleted(row));
    if (live.length > 0 && live.every((row) => Number.isNaN(p.calls.endedAt.data[row]))) n++;
  }
  return n;
}

/** Why the counts above differ from tq load --check's and tq threads', when they do. */
export function footnotes(projects: readonly ProjectStore[]): string[] {
  let deleted = 0, stored = 0, unfinished = 0;
  for (const p of projects) {
    stored += p.calls.size;
    deleted += p.calls.size - liveCalls(p);
    unfinished += unfinishedThreads(p);
  }
  const notes: string[] = [];
  if (deleted > 0) notes.push(`calls: live calls only; ${deleted} deleted ${deleted === 1 ? 'call is' : 'calls are'} not counted (tq load --check counts all ${stored} call records)`);
  if (unfinished > 0) notes.push(`threads: ${unfinished} ${unfinished === 1 ? 'thread has' : 'threads have'} no finished turn yet: counted here, left out by tq threads`);
  return notes.length ? ['', ...notes] : [];
}

const liveVersions = (p: ProjectStore, objectId: string) => p.objects.get(objectId)!.filter((v) => v.deletedAtUs === null).length;

/** Tables, then objects, then threads, each sorted by name. */
export function describeProject(store: Store, projectId: string): ProjectEntry[] {
  const p = store.project(projectId);
  if (!p) throw new UsageError(`--project: no project "${projectId}" in the data (projects: ${closestNames(projectId, store.projects.keys())})`);
  const entries: ProjectEntry[] = [];
  for (const digest of [...p.tables.keys()].sort(byName)) entries.push({ kind: 'table', digest, rows: p.tables.get(digest)!.length });
  for (const objectId of [...p.objects.keys()].sort(byName)) entries.push({ kind: 'object', object_id: objectId, versions: liveVersions(p, objectId) });
  for (const [threadId, turns] of threadTurns(p)) entries.push({ kind: 'thread', thread_id: threadId, turns });
  return entries;
}

/** The widest cell of each column (a loop: Math.max(...) over every row fails past ~100k rows). */
export function columnWidths(rows: ReadonlyArray<ReadonlyArray<string | number>>): number[] {
  const widths = rows[0].map(() => 0);
  for (const r of rows) for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i], String(r[i]).length);
  return widths;
}

/** Rows of cells as aligned text; numbers, and the header cells above them, right-aligned. */
export function alignColumns(rows: Array<Array<string | number>>): string[] {
  const widths = columnWidths(rows);
  const numeric = rows[0].map((_, i) => typeof rows[rows.length - 1][i] === 'number');
  return rows.map((r) => r.map((cell, i) => (numeric[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i]))).join('  ').trimEnd());
}

function projectsText(summaries: ProjectSummary[]): string[] {
  if (summaries.length === 0) return ['(no projects)'];
  return alignColumns([['project', 'calls', 'threads', 'tables', 'objects'], ...summaries.map((s) => [s.project, s.calls, s.threads, s.tables, s.objects])]);
}

function projectText(projectId: string, entries: ProjectEntry[]): string[] {
  const section = (title: string, rows: Array<Array<string | number>>) => [`${title} (${rows.length})`, ...(rows.length ? alignColumns(rows).map((l) => `  ${l}`) : [])];
  const plural = (n: number, unit: string) => [n, n === 1 ? unit : `${unit}s`];
  const tables = entries.flatMap((e) => (e.kind === 'table' ? [[e.digest, ...plural(e.rows, 'row')]] : []));
  const objects = entries.flatMap((e) => (e.kind === 'object' ? [[e.object_id, ...plural(e.versions, 'version')]] : []));
  const threads = entries.flatMap((e) => (e.kind === 'thread' ? [[e.thread_id, ...plural(e.turns, 'turn')]] : []));
  return [projectId, ...section('tables', tables), ...section('objects', objects), ...section('threads', threads)];
}

export function lsCommand(): Command {
  return dataOptions(new Command('ls'))
    .description('list the projects in the data (calls, threads, tables, objects), or one project\'s tables, objects and threads')
    .option('-p, --project <entity/project>', 'list this project\'s tables (digest, rows), objects (id, versions) and threads (id, turns)')
    .option('--json', 'JSON Lines: one object per project, or per table/object/thread (with "kind")')
    .addHelpText('after', '\nExamples:\n  tq ls\n  tq ls --project acme/evals\n  tq ls --json | jq -r .project')
    .action(async (opts: { project?: string; json?: boolean; fixtures?: string; fieldPrefix?: string }) => {
      parsePrefix(opts.fieldPrefix);
      const engine = await loadEngine(opts);
      if (opts.project === undefined) {
        const summaries = listProjects(engine.store);
        await writeLines(opts.json ? summaries.map((s) => JSON.stringify(s)) : [...projectsText(summaries), ...footnotes([...engine.store.projects.values()])]);
        return;
      }
      const entries = describeProject(engine.store, opts.project);
      await writeLines(opts.json ? entries.map((e) => JSON.stringify(e)) : [...projectText(opts.project, entries), ...footnotes([engine.store.project(opts.project)!])]);
    });
}
