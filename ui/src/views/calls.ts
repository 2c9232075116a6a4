/**
 * The calls table: root calls by default, filtered (op, status, time range, roots/all, text
 * search as a `$contains`), sorted by any column or by a typed path (`inputs.model`), one page at
 * a time from the server. Every control writes the URL, so a view can be bookmarked. A poll of
 * /calls/query_stats shows when calls arrive ("live").
 */
import { postJson, postLines } from '../api.ts';
import { h, mount } from '../dom.ts';
import { callTitle, compact, costOf, fmtCost, fmtInt, fmtMs, fmtTime, latencyMs, statusOf, tokensOf, userOf, valueAt, type CallRow } from '../format.ts';
import { hrefOf, paramsOf } from '../route.ts';
import { dataTable, errorBox, intParam, pager, statusBadge, type Column, type ViewContext } from '../widgets.ts';

const CALLS_PAGE = 50;
/** How often the live indicator asks whether the calls changed. */
const LIVE_POLL_MS = 3000;

const STATUSES = ['success', 'error', 'running', 'descendant_error'];

type Expr = Record<string, unknown>;

const field = (path: string) => ({ $getField: path });
const literal = (v: unknown) => ({ $literal: v });
const contains = (path: string, text: string) => ({ $contains: { input: field(path), substr: literal(text), case_insensitive: true } });

/** Seconds since the epoch of a `datetime-local` value (browser time zone), or undefined. */
function epochSeconds(local: string | null): number | undefined {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isFinite(t) ? t / 1000 : undefined;
}

/** The /calls/stream_query filter and query for the URL's parameters. */
function callsRequest(project: string, p: URLSearchParams): { project_id: string; filter: Expr; query?: Expr } {
  const filter: Expr = {};
  if (p.get('all') !== '1') filter.trace_roots_only = true;
  const op = p.get('op');
  if (op) filter.op_names = [`weave:///${project}/op/${op}:*`];
  const thread = p.get('thread');
  if (thread) filter.thread_ids = [thread];
  const conds: Expr[] = [];
  const status = p.get('status');
  if (status) conds.push({ $eq: [field('summary.weave.status'), literal(status)] });
  const from = epochSeconds(p.get('from'));
  if (from !== undefined) conds.push({ $gte: [field('started_at'), literal(from)] });
  const to = epochSeconds(p.get('to'));
  if (to !== undefined) conds.push({ $not: [{ $gte: [field('started_at'), literal(to)] }] });
  const q = p.get('q');
  if (q) {
    const where = p.get('qf');
    conds.push(where ? contains(where, q) : { $or: [contains('op_name', q), contains('display_name', q)] });
  }
  const out: { project_id: string; filter: Expr; query?: Expr } = { project_id: project, filter };
  if (conds.length > 0) out.query = { $expr: conds.length === 1 ? conds[0] : { $and: conds } };
  return out;
}

/** Columns sortable on the server; tokens and cost are sums over models, which the API cannot sort. */
const FIXED_SORTS = ['op_name', 'summary.weave.status', 'started_at', 'summary.weave.latency_ms'];

export async function renderCalls(ctx: ViewContext): Promise<void> {
  const { project, params } = ctx.route;
  const state = paramsOf(params);
  const offset = intParam(params, 'offset');
  const sort = { field: params.get('sort') || 'started_at', direction: params.get('dir') === 'asc' ? 'asc' as const : 'desc' as const };
  const set = (changes: Record<string, string | undefined>, keepOffset = false) => {
    const next = { ...state, ...changes };
    if (!keepOffset) delete next.offset;
    for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === '') delete next[k];
    location.hash = hrefOf('calls', project, '', next);
  };

  const base = callsRequest(project, params);
  const ops = postJson<{ objs: Array<{ object_id: string }> }>('/objs/query', { project_id: project, filter: { is_op: true, latest_only: true }, metadata_only: true, sort_by: [{ field: 'object_id', direction: 'asc' }] }).then((r) => r.objs.map((o) => o.object_id), () => [] as string[]);
  const [rows, stats] = await Promise.all([
    postLines<CallRow>('/calls/stream_query', { ...base, sort_by: [{ field: sort.field, direction: sort.direction }], limit: CALLS_PAGE, offset, include_costs: true }),
    postJson<{ count: number }>('/calls/query_stats', base),
  ]);
  const opNames = await ops;
  if (!ctx.current()) return;
  const userField = rows.length > 0 && 'wb_user_id' in rows[0] ? 'wb_user_id' : 'svc_user_id';

  const input = (name: string, attrs: Record<string, string>) => h('input', { name, value: state[name] ?? '', ...attrs });
  const form = h('form', { class: 'filters', 'aria-label': 'filters', onsubmit: (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(data.get(k) ?? '').trim() || undefined;
    set({ op: get('op'), status: get('status'), from: get('from'), to: get('to'), q: get('q'), qf: get('qf'), all: data.get('all') ? '1' : undefined, sort: get('sort'), dir: get('dir') });
  } },
    h('label', null, 'Op ', h('select', { name: 'op' }, h('option', { value: '' }, 'any'), opNames.map((o) => h('option', { value: o, selected: o === state.op }, o)))),
    h('label', null, 'Status ', h('select', { name: 'status' }, h('option', { value: '' }, 'any'), STATUSES.map((s) => h('option', { value: s, selected: s === state.status }, s)))),
    h('label', null, 'From ', input('from', { type: 'datetime-local', step: '1' })),
    h('label', null, 'To ', input('to', { type: 'datetime-local', step: '1' })),
    h('label', null, h('input', { type: 'checkbox', name: 'all', checked: state.all === '1' }), ' all calls (not only roots)'),
    h('label', null, 'Search ', input('q', { type: 'search', placeholder: 'text (/ to focus)', id: 'search' })),
    h('label', null, 'in ', input('qf', { placeholder: 'op or name; or a path: inputs.question', size: '22' })),
    h('label', null, 'Sort by ', input('sort', { placeholder: 'started_at or output.score', size: '18' })),
    h('select', { name: 'dir', 'aria-label': 'direction' }, h('option', { value: 'desc', selected: sort.direction === 'desc' }, 'desc'), h('option', { value: 'asc', selected: sort.direction === 'asc' }, 'asc')),
    h('button', { type: 'submit' }, 'Apply'),
    h('a', { href: hrefOf('calls', project), class: 'button' }, 'Clear'));

  const columns: Column<CallRow>[] = [
    { title: 'Op', sortField: 'op_name', cell: (c) => h('a', { href: hrefOf('trace', project, c.trace_id, { call: c.id }), class: 'op' }, callTitle(c)) },
    { title: 'Status', sortField: 'summary.weave.status', cell: (c) => statusBadge(statusOf(c)) },
    { title: 'Started', sortField: 'started_at', cell: (c) => h('time', { datetime: c.started_at }, fmtTime(c.started_at)) },
    { title: 'Latency', sortField: 'summary.weave.latency_ms', numeric: true, cell: (c) => fmtMs(latencyMs(c)) },
    { title: 'Tokens', numeric: true, cell: (c) => fmtInt(tokensOf(c)) },
    { title: 'Cost', numeric: true, cell: (c) => fmtCost(costOf(c)) },
    { title: 'User', sortField: userField, cell: (c) => userOf(c) },
  ];
  // A typed sort path (inputs.x, output.y, attributes.z) gets its own column, so the order shows.
  if (!FIXED_SORTS.includes(sort.field) && sort.field !== userField) columns.push({ title: sort.field, sortField: sort.field, cell: (c) => h('span', { class: 'mono' }, compact(valueAt(c, sort.field), 60)) });
  if (state.qf && state.qf !== sort.field) columns.push({ title: state.qf, cell: (c) => h('span', { class: 'mono' }, compact(valueAt(c, state.qf), 60)) });

  const onSort = (f: string) => set({ sort: f, dir: f === sort.field && sort.direction === 'desc' ? 'asc' : 'desc' });
  const live = h('div', { class: 'live', 'aria-live': 'polite' });
  mount(ctx.main,
    h('div', { class: 'view-head' }, h('h1', null, state.thread ? ['Calls of thread ', h('code', null, state.thread)] : state.all === '1' ? 'All calls' : 'Traces (root calls)'), live),
    form,
    dataTable(columns, rows, { label: 'calls', sort, onSort, onOpen: (c) => (location.hash = hrefOf('trace', project, c.trace_id, { call: c.id })), empty: 'No calls match.' }),
    pager(offset, CALLS_PAGE, rows.length, stats.count, (o) => set({ offset: String(o) }, true)));

  // Live: the count for the same filter, every few seconds; a change offers a refresh.
  let known = stats.count;
  const timer = setInterval(() => {
    postJson<{ count: number }>('/calls/query_stats', base).then((s) => {
      if (!ctx.current() || s.count === known) return;
      const diff = s.count - known;
      mount(live, h('button', { class: 'new-calls', onclick: () => window.dispatchEvent(new HashChangeEvent('hashchange')) },
        diff > 0 ? `${diff} new call${diff === 1 ? '' : 's'} — show` : 'calls changed — refresh'));
    }, (e: unknown) => {
      if (ctx.current()) mount(live, errorBox(e, project));
    });
  }, LIVE_POLL_MS);
  ctx.onLeave(() => clearInterval(timer));
}

