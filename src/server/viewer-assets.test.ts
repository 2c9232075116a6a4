/**
 * The viewer's files (docs/viewer.md): served at / and /ui/ without credentials, each with the
 * strict Content-Security-Policy; only files found at start-up; the API routes unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Users } from './basic-auth.ts';
import { startDemoServer } from './serving.testing.ts';
import { DEFAULT_VIEWER_DIR, loadViewerAssets, VIEWER_CSP } from './viewer-assets.ts';

function fakeViewer(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tq-viewer-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>v</title>');
  writeFileSync(join(dir, 'viewer.js'), 'console.log(1)');
  writeFileSync(join(dir, 'viewer.css'), 'body{}');
  writeFileSync(join(dir, 'notes.txt'), 'not served: no known type');
  mkdirSync(join(dir, 'sub'));
  return dir;
}

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

test('the viewer answers /, /index.html and /ui/<file> with its type and the CSP; anything else under /ui/ is a 404', () => {
  const dir = fakeViewer();
  try {
    const v = loadViewerAssets(dir);
    assert.deepEqual([v.owns('/'), v.owns('/index.html'), v.owns('/ui/x'), v.owns('/ui'), v.owns('/calls/stream_query'), v.owns('//')], [true, true, true, false, false, false]);
    const page = v.answer('GET', '/');
    assert.equal(page.status, 200);
    assert.equal(page.headers['Content-Type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['Content-Security-Policy'], VIEWER_CSP);
    assert.equal(Buffer.from(page.body as Uint8Array).toString(), '<!doctype html><title>v</title>');
    assert.deepEqual(v.answer('GET', '/index.html').body, page.body);
    assert.equal(v.answer('GET', '/ui/viewer.js').headers['Content-Type'], 'text/javascript; charset=utf-8');
    assert.equal(v.answer('HEAD', '/ui/viewer.css').headers['Content-Type'], 'text/css; charset=utf-8');
    for (const path of ['/ui/notes.txt', '/ui/../package.json', '/ui/sub', '/ui/', '/ui/%2e%2e/x']) {
      const a = v.answer('GET', path);
      assert.deepEqual([a.status, a.body, a.headers['Content-Security-Policy']], [404, 'Not Found\n', VIEWER_CSP], path);
    }
    const post = v.answer('POST', '/');
    assert.deepEqual([post.status, post.headers.Allow, post.body], [405, 'GET, HEAD', 'Method Not Allowed\n']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unbuilt viewer says how to build it (503), it does not crash the server', () => {
  const missing = join(tmpdir(), `tq-no-viewer-${process.pid}`);
  const a = loadViewerAssets(missing);
  const answer = a.answer('GET', '/');
  assert.equal(answer.status, 503);
  assert.equal(answer.body, `tq: the viewer is not built (no ${join(missing, 'index.html')}): run npm run build\n`);
  assert.equal(a.answer('GET', '/ui/viewer.js').status, 503);
});

test('the default viewer directory is dist/ui/ at the package root', () => {
  assert.match(DEFAULT_VIEWER_DIR, /[/\\]dist[/\\]ui[/\\]?$/);
});

test('over HTTP: the page needs no credentials and carries the CSP; the API still does (401), and POST / is a 405', async () => {
  const dir = fakeViewer();
  const { srv, base } = await startDemoServer({ viewer: loadViewerAssets(dir) });
  try {
    const page = await fetch(base + '/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), VIEWER_CSP);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(await page.text(), '<!doctype html><title>v</title>');
    const head = await fetch(base + '/ui/viewer.js', { method: 'HEAD' });
    assert.deepEqual([head.status, head.headers.get('content-length'), await head.text()], [200, '14', '']);
    const post = await fetch(base + '/', { method: 'POST', body: '{}' });
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET, HEAD']);
    const api = await fetch(base + '/tq/projects');
    assert.deepEqual([api.status, await api.json()], [401, { reason: 'Missing Authorization header: expected Basic credentials' }]);
    const other = await fetch(base + '/nope');
    assert.deepEqual([other.status, await other.json()], [404, { reason: 'Not Found' }]);
  } finally {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a viewer, / stays a 404 like any unknown path', async () => {
  const { srv, base } = await startDemoServer();
  try {
    const res = await fetch(base + '/');
    assert.deepEqual([res.status, await res.json()], [404, { reason: 'Not Found' }]);
  } finally {
    await srv.close();
  }
});

test('GET /tq/projects lists only the projects the user holds a grant on, with tq ls\'s counts', async () => {
  const users = new Users([
    { name: 'api', password: 'pw', projects: ['*'] },
    { name: 'g', password: 'p', projects: ['globex/*'] },
    { name: 'none', password: 'p', projects: ['nobody/here'] },
  ]);
  const { srv, base } = await startDemoServer({ users });
  try {
    const get = async (user: string, password: string) => {
      const res = await fetch(base + '/tq/projects', { headers: { Authorization: basic(user, password) } });
      return [res.status, await res.json()];
    };
    assert.deepEqual(await get('api', 'pw'), [200, { projects: [
      { project: 'acme/evals', calls: 104, threads: 0, tables: 1, objects: 10 },
      { project: 'acme/support-bot', calls: 77, threads: 6, tables: 0, objects: 16 },
      { project: 'globex/rag-search', calls: 98, threads: 0, tables: 0, objects: 15 },
    ] }]);
    assert.deepEqual(await get('g', 'p'), [200, { projects: [{ project: 'globex/rag-search', calls: 98, threads: 0, tables: 0, objects: 15 }] }]);
    assert.deepEqual(await get('none', 'p'), [200, { projects: [] }]);
    assert.deepEqual(await get('g', 'wrong'), [401, { reason: 'Invalid username or password' }]);
    const post = await fetch(base + '/tq/projects', { method: 'POST', headers: { Authorization: basic('api', 'pw') } });
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET']);
  } finally {
    await srv.close();
  }
});
