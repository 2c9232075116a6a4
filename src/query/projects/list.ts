/**
 * What the data holds, per project: live calls, threads (with a live turn), tables and objects.
 * `tq ls` prints it; `GET /tq/projects` answers it over HTTP for the projects the user holds a
 * grant on (the viewer's first screen). Weave has no such route (W&B lists projects); it lives
 * under /tq/ so it cannot collide with a Weave path.
 */
import { defineBodilessGet } from '../../api/define-route.ts';
import type { ProjectStore } from '../../store/project.ts';
import type { Store } from '../../store/store.ts';

export interface ProjectSummary {
  project: string;
  calls: number;
  threads: number;
  tables: number;
  objects: number;
}

export const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Live (not deleted) turns of each thread that has one, by thread id. */
export function threadTurns(p: ProjectStore): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const [threadId, rows] of p.calls.turnsByThread) {
    const live = rows.filter((row) => !p.calls.isDeleted(row)).length;
    if (live > 0) out.push([threadId, live]);
  }
  return out.sort((a, b) => byName(a[0], b[0]));
}

export function liveCalls(p: ProjectStore): number {
  let n = 0;
  for (let row = 0; row < p.calls.size; row++) if (!p.calls.isDeleted(row)) n++;
  return n;
}

/** Every project of the store (or those `include` keeps), by name. */
export function listProjects(store: Store, include: (projectId: string) => boolean = () => true): ProjectSummary[] {
  return [...store.projects.keys()].filter(include).sort(byName).map((id) => {
    const p = store.projects.get(id)!;
    return { project: id, calls: liveCalls(p), threads: threadTurns(p).length, tables: p.tables.size, objects: p.objects.size };
  });
}

/** `GET /tq/projects` → `{projects: [ProjectSummary...]}`: only the projects the user may read. */
// Names no project: it lists those the user may read (canRead), and no others.
export const projectsListRoute = defineBodilessGet('/tq/projects', ({ engine, ctx }) => ({
  projects: listProjects(engine.store, (id) => ctx.canRead(id)),
}));
