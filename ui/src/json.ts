/**
 * Collapsible JSON: objects and arrays are <details> (open to `openDepth`), keys and strings
 * are text nodes, and a string that is a Weave ref (`weave:///...`) is a link that opens it.
 * Big values stay responsive: at most MAX_ENTRIES children per level and MAX_STRING characters
 * per string are drawn at first, with a control for the rest.
 */
import { h, type Child } from './dom.ts';

const MAX_ENTRIES = 200;
const MAX_STRING = 2000;

export const isRef = (v: unknown): v is string => typeof v === 'string' && v.startsWith('weave:///');

export interface JsonOptions {
  onRef: (ref: string) => void;
  /** Levels open at first (0: only the top line). */
  openDepth?: number;
}

function scalar(v: unknown, opts: JsonOptions): Child {
  if (isRef(v)) {
    return h('a', { class: 'ref', href: '#', title: 'open this ref', 'data-ref': v, onclick: (e: Event) => { e.preventDefault(); opts.onRef(v); } }, v);
  }
  if (typeof v === 'string') {
    if (v.length <= MAX_STRING) return h('span', { class: 'j-str' }, JSON.stringify(v));
    const span = h('span', { class: 'j-str' }, JSON.stringify(v.slice(0, MAX_STRING)) + '…');
    const more = h('button', { class: 'link', onclick: () => { span.textContent = JSON.stringify(v); more.remove(); } }, `show all ${v.length.toLocaleString('en-US')} characters`);
    return [span, ' ', more];
  }
  if (v === null) return h('span', { class: 'j-null' }, 'null');
  return h('span', { class: typeof v === 'number' ? 'j-num' : 'j-bool' }, String(v));
}

function node(key: string | null, v: unknown, depth: number, opts: JsonOptions): HTMLElement {
  const label: Child = key === null ? null : [h('span', { class: 'j-key' }, key), ': '];
  if (typeof v !== 'object' || v === null) return h('div', { class: 'j-line' }, label, scalar(v, opts));
  const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return h('div', { class: 'j-line' }, label, open + close);
  const body = h('div', { class: 'j-body' });
  const draw = (from: number) => {
    const to = Math.min(entries.length, from + MAX_ENTRIES);
    for (let i = from; i < to; i++) body.appendChild(node(entries[i][0], entries[i][1], depth + 1, opts));
    if (to < entries.length) {
      const more = h('button', { class: 'link', onclick: () => { more.remove(); draw(to); } }, `show ${Math.min(MAX_ENTRIES, entries.length - to)} more of ${entries.length - to}`);
      body.appendChild(more);
    }
  };
  draw(0);
  const count = `${entries.length} ${Array.isArray(v) ? 'item' : 'key'}${entries.length === 1 ? '' : 's'}`;
  return h('details', { class: 'j-node', open: depth < (opts.openDepth ?? 2) },
    h('summary', null, label, open, h('span', { class: 'j-count' }, ` ${count} `), close),
    body);
}

export function renderJson(v: unknown, opts: JsonOptions): HTMLElement {
  return h('div', { class: 'json' }, node(null, v, 0, opts));
}
