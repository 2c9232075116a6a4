/** The project list, threads, objects (and one object's versions, a dataset's rows), feedback. */
import { getJson, postJson, postLines } from '../api.ts';
import { h, mount } from '../dom.ts';
import { compact, fmtInt, fmtMs, fmtTime, type CallRow } from '../format.ts';
import { isRef, renderJson } from '../json.ts';
import { hrefOf } from '../route.ts';
import { dataTable, errorBox, intParam, pager, type ViewContext } from '../widgets.ts';

const PAGE = 50;
const ROWS_PAGE = 25;

interface ProjectSummary { project: string; calls: number; threads: number; tables: number; objects: number }

export async function renderProjects(ctx: ViewContext): Promise<void> {
  const { projects } = await getJson<{ projects: ProjectSummary[] }>('/tq/projects');
  if (!ctx.current()) return;
  mount(ctx.main,
    h('div', { class: 'view-head' }, h('h1', null, 'Projects'), h('span', { class: 'muted' }, 'the projects you hold a grant on')),
    dataTable([
      { title: 'Project', cell: (p) => h('a', { href: hrefOf('calls', p.project) }, p.project) },
      { title: 'Calls', numeric: true, cell: (p) => fmtInt(p.calls) },
      { title: 'Threads', numeric: true, cell: (p) => (p.threads ? h('a', { href: hrefOf('threads', p.project) }, fmtInt(p.threads)) : '0') },
      { title: 'Tables', numeric: true, cell: (p) => fmtInt(p.tables) },
      { title: 'Objects', numeric: true, cell: (p) => (p.objects ? h('a', { href: hrefOf('objects', p.project) }, fmtInt(p.objects)) : '0') },
    ], projects, { label: 'projects', onOpen: (p) => (location.hash = hrefOf('calls', p.project)), empty: 'No project holds data you may read.' }));
}

interface ThreadRow { thread_id: string; turn_count: number; start_time: string; last_updated: string; p50_turn_duration_ms: number | null; p99_turn_duration_ms: number | null }

export async function renderThreads(ctx: ViewContext): Promise<void> {
  const { project, params } = ctx.route;
  const offset = intParam(params, 'offset');
  const rows = await postLines<ThreadRow>('/threads/stream_query', { project_id: project, sort_by: [{ field: 'last_updated', direction: 'desc' }], limit: PAGE, offset });
  if (!ctx.current()) return;
  const open = (t: ThreadRow) => (location.hash = hrefOf('calls', project, '', { thread: t.thread_id, sort: 'started_at', dir: 'asc' }));
  mount(ctx.main,
    h('div', { class: 'view-head' }, h('h1', null, 'Threads')),
    dataTable([
      { title: 'Thread', cell: (t) => h('a', { href: hrefOf('calls', project, '', { thread: t.thread_id, sort: 'started_at', dir: 'asc' }) }, t.thread_id) },
      { title: 'Turns', numeric: true, cell: (t) => fmtInt(t.turn_count) },
      { title: 'Started', cell: (t) => fmtTime(t.start_time) },
      { title: 'Last updated', cell: (t) => fmtTime(t.last_updated) },
      { title: 'p50 turn', numeric: true, cell: (t) => fmtMs(t.p50_turn_duration_ms ?? undefined) },
      { title: 'p99 turn', numeric: true, cell: (t) => fmtMs(t.p99_turn_duration_ms ?? undefined) },
    ], rows, { label: 'threads', onOpen: open, empty: 'No threads in this project.' }),
    pager(offset, PAGE, rows.length, undefined, (o) => (location.hash = hrefOf('threads', project, '', { offset: o }))));
}

interface ObjRow { object_id: string; digest: string; version_index: number; created_at: string; kind: string; base_object_class: string | null; val?: unknown; is_latest?: number }

export async function renderObjects(ctx: ViewContext): Promise<void> {
  const { project, params } = ctx.route;
  const offset = intParam(params, 'offset');
  const kind = params.get('kind') ?? '';
  const filter: Record<string, unknown> = { latest_only: true };
  if (kind === 'op') filter.is_op = true;
  if (kind === 'object') filter.is_op = false;
  if (kind === 'Dataset') filter.base_object_classes = ['Dataset'];
  const { objs } = await postJson<{ objs: ObjRow[] }>('/objs/query', { project_id: project, filter, metadata_only: true, sort_by: [{ field: 'object_id', direction: 'asc' }], limit: PAGE, offset });
  if (!ctx.current()) return;
  const kinds: Array<[string, string]> = [['', 'all'], ['Dataset', 'datasets'], ['object', 'objects'], ['op', 'ops']];
  mount(ctx.main,
    h('div', { class: 'view-head' }, h('h1', null, 'Objects'),
      h('nav', { class: 'tabs small', 'aria-label': 'object kinds' }, kinds.map(([k, label]) => h('a', { href: hrefOf('objects', project, '', { kind: k }), 'aria-current': k === kind ? 'page' : null }, label)))),
    dataTable([
      { title: 'Name', cell: (o) => h('a', { href: hrefOf('object', project, o.object_id) }, o.object_id) },
      { title: 'Kind', cell: (o) => o.kind },
      { title: 'Class', cell: (o) => o.base_object_class ?? '' },
      { title: 'Versions', numeric: true, cell: (o) => fmtInt(o.version_index + 1) },
      { title: 'Latest created', cell: (o) => fmtTime(o.created_at) },
    ], objs, { label: 'objects', onOpen: (o) => (location.hash = hrefOf('object', project, o.object_id)), empty: 'No objects.' }),
    pager(offset, PAGE, objs.length, undefined, (o) => (location.hash = hrefOf('objects', project, '', { kind, offset: o }))));
}

/** One object: its versions, the chosen version's value, and a dataset's rows. */
export async function renderObject(ctx: ViewContext): Promise<void> {
  const { project, id: objectId, params } = ctx.route;
  const { objs: versions } = await postJson<{ objs: ObjRow[] }>('/objs/query', { project_id: project, filter: { object_ids: [objectId] }, metadata_only: true, sort_by: [{ field: 'created_at', direction: 'desc' }], limit: 100 });
  if (!ctx.current()) return;
  if (versions.length === 0) return mount(ctx.main, h('h1', null, objectId), h('p', { class: 'empty' }, 'No live version of this object.'));
  const digest = params.get('digest') ?? versions[0].digest;
  const { obj } = await postJson<{ obj: ObjRow }>('/obj/read', { project_id: project, object_id: objectId, digest });
  if (!ctx.current()) return;
  const val = obj.val as Record<string, unknown> | null;
  const rowsRef = val && typeof val === 'object' && isRef(val.rows) ? val.rows : undefined;
  const tableDigest = rowsRef ? /\/table\/([^/]+)$/.exec(rowsRef)?.[1] : undefined;
  const rowsBox = h('section', { class: 'dataset-rows', 'aria-label': 'rows' });
  mount(ctx.main,
    h('div', { class: 'view-head' }, h('h1', null, obj.base_object_class === 'Dataset' ? 'Dataset ' : 'Object ', h('code', null, objectId)),
      h('a', { href: hrefOf('objects', project), class: 'button' }, '← Objects')),
    h('div', { class: 'object-layout' },
      h('aside', { class: 'versions', 'aria-label': 'versions' }, h('h2', null, 'Versions'),
        h('ol', { reversed: true }, versions.map((v) => h('li', null, h('a', { href: hrefOf('object', project, objectId, { digest: v.digest }), 'aria-current': v.digest === digest ? 'page' : null }, `v${v.version_index}`), ' ', h('span', { class: 'muted' }, fmtTime(v.created_at)))))),
      h('div', null,
        h('p', { class: 'muted mono' }, `weave:///${project}/object/${objectId}:${digest}`),
        renderJson(val, { onRef: ctx.openRef, openDepth: 2 }),
        rowsBox)));
  if (tableDigest) await renderTableRows(ctx, rowsBox, tableDigest, intParam(params, 'offset'), (o) => (location.hash = hrefOf('object', project, objectId, { digest, offset: o })));
}

export async function renderTable(ctx: ViewContext): Promise<void> {
  const { project, id: digest, params } = ctx.route;
  const box = h('section', { class: 'dataset-rows' });
  mount(ctx.main, h('div', { class: 'view-head' }, h('h1', null, 'Table ', h('code', null, digest))), box);
  await renderTableRows(ctx, box, digest, intParam(params, 'offset'), (o) => (location.hash = hrefOf('table', project, digest, { offset: o })));
}

async function renderTableRows(ctx: ViewContext, box: HTMLElement, digest: string, offset: number, go: (offset: number) => void): Promise<void> {
  const { project } = ctx.route;
  const [{ rows }, { count }] = await Promise.all([
    postJson<{ rows: Array<{ digest: string; val: unknown }> }>('/table/query', { project_id: project, digest, limit: ROWS_PAGE, offset }),
    postJson<{ count: number }>('/table/query_stats', { project_id: project, digest }),
  ]);
  if (!ctx.current()) return;
  const keys: string[] = [];
  for (const r of rows) if (r.val && typeof r.val === 'object' && !Array.isArray(r.val)) for (const k of Object.keys(r.val)) if (!keys.includes(k)) keys.push(k);
  const cell = (r: { val: unknown }, k: string) => {
    const v = (r.val as Record<string, unknown>)[k];
    return isRef(v) ? h('a', { class: 'ref', href: '#', 'data-ref': v, onclick: (e: Event) => { e.preventDefault(); ctx.openRef(v); } }, v) : compact(v, 80);
  };
  mount(box, h('h2', null, `Rows (${fmtInt(count)})`),
    dataTable([{ title: '#', numeric: true, cell: (r: { val: unknown; index: number }) => String(r.index) }, ...(keys.length ? keys.map((k) => ({ title: k, cell: (r: { val: unknown }) => cell(r, k) })) : [{ title: 'value', cell: (r: { val: unknown }) => compact(r.val, 120) }])],
      rows.map((r, i) => ({ ...r, index: offset + i })), { label: 'table rows', empty: 'No rows.' }),
    pager(offset, ROWS_PAGE, rows.length, count, go));
}

interface FeedbackRow { id: string; weave_ref: string; feedback_type: string; payload: unknown; creator: string | null; created_at: string }

export async function renderFeedback(ctx: ViewContext): Promise<void> {
  const { project, params } = ctx.route;
  const offset = intParam(params, 'offset');
  const { result } = await postJson<{ result: FeedbackRow[] }>('/feedback/query', { project_id: project, sort_by: [{ field: 'created_at', direction: 'desc' }], limit: PAGE, offset });
  if (!ctx.current()) return;
  const target = (ref: string) => {
    const call = /^weave:\/\/\/[^/]+\/[^/]+\/call\/([^/]+)$/.exec(ref);
    if (call) return h('a', { href: hrefOf('call', project, call[1]) }, `call ${call[1]}`);
    return h('a', { class: 'ref', href: '#', 'data-ref': ref, onclick: (e: Event) => { e.preventDefault(); ctx.openRef(ref); } }, ref);
  };
  mount(ctx.main,
    h('div', { class: 'view-head' }, h('h1', null, 'Feedback')),
    dataTable([
      { title: 'Created', cell: (f) => fmtTime(f.created_at) },
      { title: 'Type', cell: (f) => f.feedback_type },
      { title: 'Payload', cell: (f) => h('span', { class: 'mono' }, compact(f.payload, 90)) },
      { title: 'Creator', cell: (f) => f.creator ?? '' },
      { title: 'On', cell: (f) => target(f.weave_ref) },
    ], result, { label: 'feedback', empty: 'No feedback in this project.' }),
    pager(offset, PAGE, result.length, undefined, (o) => (location.hash = hrefOf('feedback', project, '', { offset: o }))));
}

/** `#/call/<project>/<id>`: finds the call's trace and opens it there. */
export async function renderCallLink(ctx: ViewContext): Promise<void> {
  const { project, id } = ctx.route;
  const [call] = await postLines<CallRow>('/calls/stream_query', { project_id: project, filter: { call_ids: [id] }, limit: 1, columns: ['id', 'trace_id'] });
  if (!ctx.current()) return;
  if (!call) return mount(ctx.main, errorBox(new Error(`no call ${id} in ${project}`)));
  location.replace(hrefOf('trace', project, call.trace_id, { call: call.id }));
}
