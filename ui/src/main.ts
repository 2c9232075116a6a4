/**
 * The viewer's shell: sign-in, the header (project, views, theme, sign out), the router over
 * the URL's fragment, the ref panel and the global keys. See docs/viewer.md.
 */
import { clearSession, currentSession, getJson, postJson, saveSession, setUnauthorizedHandler, ApiError } from './api.ts';
import { h, mount } from './dom.ts';
import { renderJson } from './json.ts';
import { hrefOf, parseRoute, type Route, type View } from './route.ts';
import { renderCalls } from './views/calls.ts';
import { renderCallLink, renderFeedback, renderObject, renderObjects, renderProjects, renderTable, renderThreads } from './views/lists.ts';
import { renderTrace } from './views/trace.ts';
import { errorBox, type ViewContext } from './widgets.ts';

const THEME_KEY = 'tq.viewer.theme';
const app = document.getElementById('app')!;

const RENDER: Record<View, (ctx: ViewContext) => Promise<void>> = {
  projects: renderProjects, calls: renderCalls, trace: renderTrace, call: renderCallLink, threads: renderThreads,
  objects: renderObjects, object: renderObject, table: renderTable, feedback: renderFeedback,
};

const TABS: Array<[View, string]> = [['calls', 'Calls'], ['threads', 'Threads'], ['objects', 'Objects'], ['feedback', 'Feedback']];

function applyTheme(theme: string | null): void {
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

function toggleTheme(): void {
  const dark = document.documentElement.dataset.theme === 'dark' || (!document.documentElement.dataset.theme && matchMedia('(prefers-color-scheme: dark)').matches);
  const next = dark ? 'light' : 'dark';
  localStorage.setItem(THEME_KEY, next);
  applyTheme(next);
}

function signInForm(message?: string): void {
  leaveView();
  const error = h('p', { class: 'error', role: 'alert', hidden: !message }, message ?? '');
  const form = h('form', { class: 'signin', 'aria-label': 'sign in', onsubmit: async (e: Event) => {
    e.preventDefault();
    const data = new FormData(form);
    const user = String(data.get('user') ?? '');
    const session = saveSession(user, String(data.get('password') ?? ''));
    try {
      await getJson('/tq/projects', session);
      route();
    } catch (err) {
      clearSession();
      error.hidden = false;
      error.textContent = err instanceof ApiError ? err.reason : String(err);
    }
  } },
    h('h1', null, 'tq viewer'),
    h('p', { class: 'muted' }, 'Sign in with a user of this server (tq serve prints it). The credentials stay in this tab only.'),
    h('label', null, 'User', h('input', { name: 'user', autocomplete: 'username', required: true, value: 'api', id: 'user' })),
    h('label', null, 'Password or API key', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', id: 'password' })),
    h('button', { type: 'submit' }, 'Sign in'),
    error);
  mount(app, form);
  form.querySelector<HTMLInputElement>('#password')!.focus();
}

let leave: Array<() => void> = [];
let generation = 0;
function leaveView(): void {
  generation++;
  for (const f of leave) f();
  leave = [];
  closeRef();
}

const refPanel = h('aside', { class: 'ref-panel', hidden: true, 'aria-label': 'ref', role: 'dialog' });
function closeRef(): void {
  refPanel.hidden = true;
  refPanel.replaceChildren();
}

async function openRef(ref: string): Promise<void> {
  refPanel.hidden = false;
  const m = /^weave:\/\/\/([^/]+\/[^/]+)\/(object|op|table|call)\/([^:/]+)(?::([^/]+))?/.exec(ref);
  const open = m?.[2] === 'call' ? hrefOf('call', m[1], m[3]) : m?.[2] === 'table' ? hrefOf('table', m[1], m[3]) : m ? hrefOf('object', m[1], m[3], { digest: m[4] }) : undefined;
  const body = h('div', { class: 'ref-body' }, h('p', { class: 'loading' }, 'Loading…'));
  mount(refPanel,
    h('div', { class: 'ref-head' }, h('h2', null, 'Ref'), h('button', { class: 'close', 'aria-label': 'close', onclick: closeRef }, '×')),
    h('p', { class: 'mono ref-text' }, ref),
    open ? h('a', { href: open, class: 'button', onclick: closeRef }, 'Open') : null,
    body);
  try {
    const { vals } = await postJson<{ vals: unknown[] }>('/refs/read_batch', { refs: [ref] });
    mount(body, renderJson(vals[0], { onRef: (r) => void openRef(r), openDepth: 2 }));
  } catch (e) {
    mount(body, errorBox(e, m?.[1]));
  }
}

function header(r: Route): HTMLElement {
  const session = currentSession();
  return h('header', { class: 'top' },
    h('a', { href: '#/', class: 'brand' }, 'tq'),
    r.project ? h('span', { class: 'project' }, h('a', { href: '#/' }, 'projects'), ' / ', h('strong', null, r.project)) : h('span', { class: 'project' }, 'projects'),
    r.project ? h('nav', { class: 'tabs', 'aria-label': 'views' }, TABS.map(([view, label]) => {
      const current = r.view === view || (view === 'calls' && (r.view === 'trace' || r.view === 'call')) || (view === 'objects' && (r.view === 'object' || r.view === 'table'));
      return h('a', { href: hrefOf(view, r.project), 'aria-current': current ? 'page' : null }, label);
    })) : null,
    h('span', { class: 'spacer' }),
    h('button', { class: 'theme', title: 'light / dark (t)', onclick: toggleTheme }, '◐ theme'),
    h('span', { class: 'who' }, session?.user ?? ''),
    h('button', { class: 'signout', onclick: () => { clearSession(); signInForm(); } }, 'Sign out'));
}

function route(): void {
  leaveView();
  if (!currentSession()) return signInForm();
  const r = parseRoute(location.hash);
  const mine = generation;
  const main = h('main', { id: 'main', tabindex: -1 }, h('p', { class: 'loading' }, 'Loading…'));
  mount(app, header(r), main, refPanel);
  const ctx: ViewContext = { route: r, main, openRef: (ref) => void openRef(ref), onLeave: (f) => leave.push(f), current: () => generation === mine };
  const started = performance.now();
  RENDER[r.view](ctx).then(() => {
    if (!ctx.current()) return;
    // For the benchmark and the tests: when the view's first data is drawn.
    document.body.dataset.rendered = `${r.view}:${Math.round(performance.now() - started)}`;
  }, (e: unknown) => {
    if (!ctx.current()) return;
    if (e instanceof ApiError && e.status === 401) return;
    mount(main, errorBox(e, r.project || undefined));
    document.body.dataset.rendered = `${r.view}:error`;
  });
}

setUnauthorizedHandler((reason) => {
  clearSession();
  signInForm(`Signed out: ${reason}`);
});

document.addEventListener('keydown', (e) => {
  const target = e.target as HTMLElement;
  if (target.closest('input, select, textarea')) {
    if (e.key === 'Escape') target.blur();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'Escape' && !refPanel.hidden) closeRef();
  else if (e.key === '/') document.getElementById('search')?.focus();
  else if (e.key === 't') toggleTheme();
  else if (e.key === 'g') location.hash = '#/';
  else return;
  e.preventDefault();
});

applyTheme(localStorage.getItem(THEME_KEY));
window.addEventListener('hashchange', route);
route();
