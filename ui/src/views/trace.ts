/**
 * A trace: the call tree beside a waterfall of start and duration bars, errors marked, and the
 * selected call's detail (inputs, output, attributes, summary, exception, feedback, costs).
 * A trace of up to EAGER_MAX calls is read at once; a bigger one loads each call's children when
 * it is opened, CHILD_PAGE at a time, so a 10,000-call trace draws its first rows as fast as a
 * small one.
 */
import { postJson, postLines } from '../api.ts';
import { h, mount } from '../dom.ts';
import { callTitle, costOf, fmtCost, fmtInt, fmtMs, fmtTime, latencyMs, statusOf, tokensOf, userOf, type CallRow } from '../format.ts';
import { isRef, renderJson } from '../json.ts';
import { hrefOf } from '../route.ts';
import { errorBox, statusBadge, type ViewContext } from '../widgets.ts';

const EAGER_MAX = 2000;
const CHILD_PAGE = 200;

/** The columns the tree needs (the detail pane reads the whole call). */
const TREE_COLUMNS = ['id', 'op_name', 'display_name', 'trace_id', 'parent_id', 'started_at', 'ended_at', 'exception', 'summary'];

interface TreeNode {
  call: CallRow;
  depth: number;
  /** Child ids loaded so far; undefined until first loaded. */
  children?: string[];
  /** More children on the server than loaded (lazy mode). */
  more: boolean;
  expanded: boolean;
}

type VisibleRow = { kind: 'call'; node: TreeNode } | { kind: 'more'; parent: TreeNode };

const time = (iso: string | null) => (iso ? Date.parse(iso) : NaN);

export async function renderTrace(ctx: ViewContext): Promise<void> {
  const { project, id: traceId, params } = ctx.route;
  const nodes = new Map<string, TreeNode>();
  const roots: string[] = [];
  const { count } = await postJson<{ count: number }>('/calls/query_stats', { project_id: project, filter: { trace_ids: [traceId] } });
  const lazy = count > EAGER_MAX;
  const query = (filter: Record<string, unknown>, limit: number, offset = 0) => postLines<CallRow>('/calls/stream_query', {
    project_id: project, filter: { trace_ids: [traceId], ...filter }, sort_by: [{ field: 'started_at', direction: 'asc' }], limit, offset, columns: TREE_COLUMNS,
  });
  const add = (call: CallRow, depth: number): TreeNode => {
    const node: TreeNode = { call, depth, more: false, expanded: !lazy };
    nodes.set(call.id, node);
    return node;
  };

  if (!lazy) {
    const all = await query({}, EAGER_MAX);
    const byParent = new Map<string, string[]>();
    const ids = new Set(all.map((c) => c.id));
    for (const c of all) {
      const parentKnown = c.parent_id !== null && ids.has(c.parent_id);
      if (!parentKnown) roots.push(c.id);
      else byParent.set(c.parent_id!, [...(byParent.get(c.parent_id!) ?? []), c.id]);
      add(c, 0);
    }
    const setDepth = (id: string, depth: number) => {
      const n = nodes.get(id)!;
      n.depth = depth;
      n.children = byParent.get(id) ?? [];
      for (const child of n.children) setDepth(child, depth + 1);
    };
    for (const r of roots) setDepth(r, 0);
  } else {
    for (const c of await query({ trace_roots_only: true }, CHILD_PAGE)) {
      roots.push(c.id);
      add(c, 0);
    }
  }
  if (!ctx.current()) return;
  if (roots.length === 0) {
    mount(ctx.main, h('h1', null, 'Trace ', h('code', null, traceId)), h('p', { class: 'empty' }, 'No live call of this project has this trace id.'));
    return;
  }

  async function loadChildren(node: TreeNode): Promise<void> {
    const have = node.children ?? [];
    const page = await query({ parent_ids: [node.call.id] }, CHILD_PAGE, have.length);
    node.children = [...have, ...page.map((c) => add(c, node.depth + 1).call.id)];
    node.more = page.length === CHILD_PAGE;
  }
  if (lazy) for (const r of roots) {
    const n = nodes.get(r)!;
    await loadChildren(n);
    n.expanded = true;
  }
  if (!ctx.current()) return;

  // The waterfall's time axis: the roots' span (a running call reaches to now).
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const n of nodes.values()) {
    t0 = Math.min(t0, time(n.call.started_at));
    t1 = Math.max(t1, Number.isFinite(time(n.call.ended_at)) ? time(n.call.ended_at) : Date.now());
  }
  const span = Math.max(1, t1 - t0);

  let selected = params.get('call') && nodes.has(params.get('call')!) ? params.get('call')! : roots[0];
  const treeBox = h('div', { class: 'tree', role: 'tree', 'aria-label': 'call tree' });
  const detail = h('section', { class: 'detail', 'aria-label': 'call detail' });
  let visible: VisibleRow[] = [];

  function flatten(): VisibleRow[] {
    const out: VisibleRow[] = [];
    const walk = (id: string) => {
      const n = nodes.get(id)!;
      out.push({ kind: 'call', node: n });
      if (!n.expanded || !n.children) return;
      for (const c of n.children) walk(c);
      if (n.more) out.push({ kind: 'more', parent: n });
    };
    for (const r of roots) walk(r);
    return out;
  }

  function rowOf(v: VisibleRow): HTMLElement {
    if (v.kind === 'more') {
      const btn = h('button', { class: 'link more-children', onclick: async () => {
        btn.disabled = true;
        await loadChildren(v.parent);
        draw();
      } }, `load ${CHILD_PAGE} more children of ${callTitle(v.parent.call)}`);
      const row = h('div', { class: 'tree-row more' }, h('div', { class: 'tree-name' }, btn));
      row.querySelector<HTMLElement>('.tree-name')!.style.paddingLeft = `${(v.parent.depth + 1) * 14 + 20}px`;
      return row;
    }
    const n = v.node;
    const c = n.call;
    const status = statusOf(c);
    const leaf = n.children !== undefined && n.children.length === 0 && !n.more;
    const toggle = leaf
      ? h('span', { class: 'toggle leaf' }, '')
      : h('button', { class: 'toggle', tabindex: -1, 'aria-label': n.expanded ? 'collapse' : 'expand', onclick: (e: Event) => { e.stopPropagation(); void setExpanded(n, !n.expanded); } }, n.expanded ? '▾' : '▸');
    const name = h('div', { class: 'tree-name' }, toggle, h('span', { class: 'tree-op' }, callTitle(c)), status === 'error' ? h('span', { class: 'err-mark', title: 'error' }, ' ✕') : status === 'descendant_error' ? h('span', { class: 'child-err-mark', title: 'a descendant failed' }, ' •') : null);
    name.style.paddingLeft = `${n.depth * 14}px`;
    const bar = h('div', { class: `bar s-${status}` });
    const start = time(c.started_at) - t0;
    const end = Number.isFinite(time(c.ended_at)) ? time(c.ended_at) - t0 : span;
    bar.style.left = `${(start / span) * 100}%`;
    bar.style.width = `max(2px, ${(Math.max(0, end - start) / span) * 100}%)`;
    const row = h('div', {
      class: `tree-row${c.id === selected ? ' selected' : ''}${status === 'error' ? ' errored' : ''}`, role: 'treeitem', 'aria-level': n.depth + 1,
      'aria-expanded': leaf ? null : String(n.expanded), 'aria-selected': String(c.id === selected), tabindex: c.id === selected ? 0 : -1, 'data-id': c.id,
    }, name, h('div', { class: 'tree-dur' }, fmtMs(latencyMs(c))), h('div', { class: 'waterfall' }, bar));
    row.addEventListener('click', () => select(c.id, true));
    return row;
  }

  function draw(focus = false): void {
    visible = flatten();
    mount(treeBox, visible.map(rowOf));
    if (focus) treeBox.querySelector<HTMLElement>('.tree-row.selected')?.focus();
  }

  async function setExpanded(n: TreeNode, expanded: boolean): Promise<void> {
    if (expanded && n.children === undefined) await loadChildren(n);
    n.expanded = expanded;
    draw(true);
  }

  /** Moves the selection without redrawing the tree (a 2,000-row tree stays quick under the arrow keys). */
  function select(id: string, focus: boolean): void {
    const mark = (rowId: string, on: boolean) => {
      const row = treeBox.querySelector<HTMLElement>(`.tree-row[data-id="${CSS.escape(rowId)}"]`);
      if (!row) return undefined;
      row.classList.toggle('selected', on);
      row.setAttribute('aria-selected', String(on));
      row.tabIndex = on ? 0 : -1;
      return row;
    };
    mark(selected, false);
    selected = id;
    history.replaceState(null, '', hrefOf('trace', project, traceId, { call: id }));
    const row = mark(id, true);
    if (focus) row?.focus();
    void showDetail(id);
  }

  treeBox.addEventListener('keydown', (e) => {
    const i = visible.findIndex((v) => v.kind === 'call' && v.node.call.id === selected);
    const n = nodes.get(selected);
    const moveTo = (j: number) => {
      for (let k = j; k >= 0 && k < visible.length; k += j > i ? 1 : -1) {
        const v = visible[k];
        if (v.kind === 'call') return select(v.node.call.id, true);
      }
    };
    if (e.key === 'ArrowDown' || e.key === 'j') moveTo(i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') moveTo(i - 1);
    else if (e.key === 'ArrowRight' && n) {
      if (!n.expanded) void setExpanded(n, true);
      else if (n.children?.length) select(n.children[0], true);
    } else if (e.key === 'ArrowLeft' && n) {
      if (n.expanded && n.children?.length !== 0) void setExpanded(n, false);
      else if (n.call.parent_id && nodes.has(n.call.parent_id)) select(n.call.parent_id, true);
    } else return;
    e.preventDefault();
  });

  let detailSeq = 0;
  async function showDetail(id: string): Promise<void> {
    const seq = ++detailSeq;
    mount(detail, h('p', { class: 'loading' }, 'Loading…'));
    try {
      const [call] = await postLines<CallRow>('/calls/stream_query', { project_id: project, filter: { call_ids: [id] }, include_costs: true, include_feedback: true, limit: 1 });
      if (seq !== detailSeq || !ctx.current()) return;
      if (!call) return mount(detail, h('p', { class: 'empty' }, 'This call is gone.'));
      mount(detail, callDetail(call, project, ctx.openRef));
    } catch (e) {
      if (seq === detailSeq) mount(detail, errorBox(e, project));
    }
  }

  const head = h('div', { class: 'view-head' },
    h('h1', null, 'Trace ', h('code', null, traceId)),
    h('span', { class: 'muted' }, `${fmtInt(count)} calls${lazy ? ` (children load when opened, ${CHILD_PAGE} at a time)` : ''}`),
    h('a', { href: hrefOf('calls', project), class: 'button' }, '← Calls'));
  const axis = h('div', { class: 'tree-row tree-head' }, h('div', { class: 'tree-name' }, 'Call'), h('div', { class: 'tree-dur' }, 'Latency'), h('div', { class: 'waterfall axis' }, h('span', null, '0'), h('span', null, fmtMs(span))));
  mount(ctx.main, head, h('div', { class: 'trace' }, h('div', { class: 'tree-pane' }, axis, treeBox), detail));
  draw();
  if (selected) {
    if (params.get('call') && params.get('call') !== selected) void showDetail(params.get('call')!);
    else void showDetail(selected);
  }
}

/** The detail pane of one call. */
function callDetail(call: CallRow, project: string, onRef: (ref: string) => void): HTMLElement {
  const summary = (call.summary ?? {}) as Record<string, unknown>;
  const weave = (summary.weave ?? {}) as Record<string, unknown>;
  const section = (title: string, value: unknown, open = true) => h('details', { class: 'section', open, 'data-section': title.toLowerCase() }, h('summary', null, title), renderJson(value, { onRef }));
  const fact = (label: string, value: Parameters<typeof h>[2]) => [h('dt', null, label), h('dd', null, value)];
  return h('div', { class: 'call-detail' },
    h('h2', null, callTitle(call), ' ', statusBadge(statusOf(call))),
    h('dl', { class: 'facts' },
      fact('id', h('code', null, call.id)),
      fact('op', isRef(call.op_name) ? h('a', { class: 'ref', href: '#', 'data-ref': call.op_name, onclick: (e: Event) => { e.preventDefault(); onRef(call.op_name); } }, call.op_name) : call.op_name),
      fact('started', fmtTime(call.started_at)),
      fact('latency', fmtMs(latencyMs(call))),
      fact('tokens', fmtInt(tokensOf(call))),
      fact('cost', fmtCost(costOf(call))),
      fact('user', userOf(call)),
      call.thread_id ? fact('thread', h('a', { href: hrefOf('calls', project, '', { thread: call.thread_id }) }, call.thread_id)) : null),
    call.exception ? h('details', { class: 'section exception', open: true, 'data-section': 'exception' }, h('summary', null, 'Exception'), h('pre', null, call.exception)) : null,
    section('Inputs', call.inputs ?? {}),
    section('Output', call.output ?? null),
    section('Attributes', call.attributes ?? {}, false),
    section('Summary', summary, false),
    weave.costs ? section('Costs', weave.costs, false) : null,
    section('Feedback', weave.feedback ?? [], Array.isArray(weave.feedback) && weave.feedback.length > 0));
}
