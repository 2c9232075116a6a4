/** Pieces every view uses: the view context, a keyboard-navigable table, a pager, errors. */
import { ApiError } from './api.ts';
import { h, type Child } from './dom.ts';
import type { Route } from './route.ts';

export interface ViewContext {
  route: Route;
  /** The view's area; the view fills it. */
  main: HTMLElement;
  /** Opens a Weave ref (read through /refs/read_batch) over the view. */
  openRef(ref: string): void;
  /** Runs when the view is left (timers, listeners). */
  onLeave(f: () => void): void;
  /** Whether the view is still the one shown (an answer that arrives later is dropped). */
  current(): boolean;
}

export interface Column<T> {
  title: string;
  cell: (row: T) => Child;
  /** A sortable column's field; the header then toggles the sort. */
  sortField?: string;
  numeric?: boolean;
}

export interface TableOptions<T> {
  sort?: { field: string; direction: 'asc' | 'desc' };
  onSort?: (field: string) => void;
  /** Enter or a click on a row. */
  onOpen?: (row: T) => void;
  /** What a row's link points to (so it can be opened in a new tab too). */
  hrefOf?: (row: T) => string;
  empty?: string;
  label: string;
}

/**
 * A table whose rows are reachable by keyboard: Arrow keys or j/k move, Enter opens. Each row
 * is one tab stop at most (roving tabindex).
 */
export function dataTable<T>(columns: Column<T>[], rows: T[], opts: TableOptions<T>): HTMLElement {
  const head = h('tr', null, columns.map((c) => {
    const sorted = opts.sort && c.sortField === opts.sort.field;
    const arrow = sorted ? (opts.sort!.direction === 'asc' ? ' ▲' : ' ▼') : '';
    const content = c.sortField && opts.onSort
      ? h('button', { class: 'th-sort', title: `sort by ${c.sortField}`, onclick: () => opts.onSort!(c.sortField!) }, c.title + arrow)
      : c.title;
    return h('th', { class: c.numeric ? 'num' : null, 'aria-sort': sorted ? (opts.sort!.direction === 'asc' ? 'ascending' : 'descending') : null }, content);
  }));
  const bodyRows = rows.map((row, i) => {
    const tr = h('tr', { tabindex: i === 0 ? 0 : -1, 'data-index': i }, columns.map((c) => h('td', { class: c.numeric ? 'num' : null }, c.cell(row))));
    if (opts.onOpen) {
      tr.classList.add('clickable');
      tr.addEventListener('click', (e) => {
        if ((e.target as Element).closest('a,button')) return;
        opts.onOpen!(row);
      });
    }
    return tr;
  });
  const tbody = h('tbody', null, bodyRows);
  tbody.addEventListener('keydown', (e) => {
    const tr = (e.target as Element).closest('tr');
    if (!tr) return;
    const i = Number(tr.getAttribute('data-index'));
    const move = (j: number) => {
      const next = bodyRows[Math.max(0, Math.min(bodyRows.length - 1, j))];
      tr.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    };
    if (e.key === 'ArrowDown' || e.key === 'j') move(i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') move(i - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(bodyRows.length - 1);
    else if (e.key === 'Enter' && opts.onOpen) opts.onOpen(rows[i]);
    else return;
    e.preventDefault();
  });
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'data', 'aria-label': opts.label }, h('thead', null, head), tbody),
    rows.length === 0 ? h('p', { class: 'empty' }, opts.empty ?? 'Nothing here.') : null);
}

/** Previous / next around "from–to of total" (total unknown: next while a page came back full). */
export function pager(offset: number, limit: number, shown: number, total: number | undefined, go: (offset: number) => void): HTMLElement {
  const last = offset + shown;
  const hasNext = total === undefined ? shown === limit : last < total;
  const text = shown === 0 ? (total === 0 ? 'none' : `nothing from ${offset + 1}`) : `${(offset + 1).toLocaleString('en-US')}–${last.toLocaleString('en-US')}${total === undefined ? '' : ` of ${total.toLocaleString('en-US')}`}`;
  return h('nav', { class: 'pager', 'aria-label': 'pages' },
    h('button', { disabled: offset === 0, 'data-page': 'prev', onclick: () => go(Math.max(0, offset - limit)) }, '← Previous'),
    h('span', { class: 'pager-text' }, text),
    h('button', { disabled: !hasNext, 'data-page': 'next', onclick: () => go(offset + limit) }, 'Next →'));
}

/** An error as the user should read it: a refused grant names the project, others show tq's reason. */
export function errorBox(e: unknown, project?: string): HTMLElement {
  if (e instanceof ApiError && e.status === 403) {
    return h('div', { class: 'error refused', role: 'alert' },
      h('strong', null, 'No access'), ' ',
      project ? [`Project `, h('code', null, project), ' is not granted to you. '] : null,
      h('span', { class: 'reason' }, e.reason), ' ',
      h('a', { href: '#/' }, 'The projects you may read'));
  }
  if (e instanceof ApiError) return h('div', { class: 'error', role: 'alert' }, h('strong', null, `Error ${e.status}`), ' ', h('span', { class: 'reason' }, e.reason));
  return h('div', { class: 'error', role: 'alert' }, h('strong', null, 'Error'), ' ', String(e instanceof Error ? e.message : e));
}

export const statusBadge = (status: string) => h('span', { class: `status s-${status.replace(/[^a-z_]/g, '')}`, title: status }, status === 'descendant_error' ? 'child error' : status);

export const intParam = (p: URLSearchParams, name: string, fallback = 0) => {
  const n = Number(p.get(name));
  return Number.isInteger(n) && n >= 0 ? n : fallback;
};
