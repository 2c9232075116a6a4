/**
 * The trace viewer's static files (docs/viewer.md): `GET /` is its page, `GET /ui/<file>` its
 * script and style sheet, read once from the directory scripts/build.mjs writes (dist/ui/).
 * The page holds no data and needs no credentials: it signs in and reads through the public
 * API like any other client, so grants apply to every byte it shows.
 *
 * Every answer carries a strict Content-Security-Policy: scripts, styles and requests only from
 * this origin, no inline script or style, no plugins, no framing, no form posts. With it, a user
 * value that the page failed to escape still could not run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every viewer answer, errors included. */
const VIEWER_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': VIEWER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  // Small files, re-validated each time: a rebuilt viewer shows at the next reload.
  'Cache-Control': 'no-cache',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The built viewer's directory: dist/ui/ at the package root, from src/server/ and dist/server/ alike. */
export const DEFAULT_VIEWER_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url));

interface ViewerAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

export interface ViewerAssets {
  /** Whether the viewer answers this path (`/`, `/index.html` and everything under `/ui/`). */
  owns(path: string): boolean;
  /** The answer for a request on a path it owns. */
  answer(method: string | undefined, path: string): ViewerAnswer;
}

const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.'))];

/**
 * Reads the viewer's files from `dir` into memory (a missing directory answers 503 with how to
 * build it). Only the files found at start-up are served: a request path is never joined to
 * the file system, so `/ui/../x` cannot reach outside.
 */
export function loadViewerAssets(dir: string = DEFAULT_VIEWER_DIR): ViewerAssets {
  const files = new Map<string, { type: string; bytes: Uint8Array }>();
  if (existsSync(dir)) {
    for (const name of readdirSync(dir)) {
      const type = typeOf(name);
      if (type) files.set(name, { type, bytes: readFileSync(join(dir, name)) });
    }
  }
  const text = (status: number, message: string, extra: Record<string, string> = {}): ViewerAnswer => ({
    status,
    headers: { ...VIEWER_HEADERS, ...extra, 'Content-Type': 'text/plain; charset=utf-8' },
    body: `${message}\n`,
  });
  return {
    owns: (path) => path === '/' || path === '/index.html' || path.startsWith('/ui/'),
    answer(method, path) {
      if (method !== 'GET' && method !== 'HEAD') return text(405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
      const name = path.startsWith('/ui/') ? path.slice('/ui/'.length) : 'index.html';
      if (!files.has('index.html')) return text(503, `tq: the viewer is not built (no ${join(dir, 'index.html')}): run npm run build`);
      const file = files.get(name);
      if (!file) return text(404, 'Not Found');
      return { status: 200, headers: { ...VIEWER_HEADERS, 'Content-Type': file.type }, body: file.bytes };
    },
  };
}
