/**
 * The view's state lives in the URL's fragment, so a view can be bookmarked and shared:
 * `#/<view>/<project>[/<id>]?<params>` (the project URI-encoded, one path segment).
 * `#/` is the project list.
 */
export type View = 'projects' | 'calls' | 'trace' | 'call' | 'threads' | 'objects' | 'object' | 'table' | 'feedback';

export interface Route {
  view: View;
  project: string;
  id: string;
  params: URLSearchParams;
}

const VIEWS: readonly View[] = ['projects', 'calls', 'trace', 'call', 'threads', 'objects', 'object', 'table', 'feedback'];

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '');
  const q = text.indexOf('?');
  const path = q < 0 ? text : text.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : text.slice(q + 1));
  const [view = '', project = '', ...rest] = path.split('/').filter((s) => s !== '').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return '';
    }
  });
  if (!VIEWS.includes(view as View) || (view !== 'projects' && project === '')) return { view: 'projects', project: '', id: '', params };
  return { view: view as View, project, id: rest.join('/'), params };
}

/** The fragment of a view; empty params are left out. */
export function hrefOf(view: View, project = '', id = '', params: Record<string, string | number | undefined> = {}): string {
  if (view === 'projects') return '#/';
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const qs = search.toString();
  return `#/${view}/${encodeURIComponent(project)}${id ? `/${encodeURIComponent(id)}` : ''}${qs ? `?${qs}` : ''}`;
}

export const paramsOf = (p: URLSearchParams): Record<string, string> => Object.fromEntries(p.entries());
