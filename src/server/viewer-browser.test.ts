/**
 * The trace viewer in a real browser (Debian's chromium, driven by playwright-core; nothing is
 * downloaded): `tq serve` on the demo data, sign in, filter, sort and page the calls, open a trace
 * and check its tree and detail against the API, follow a ref, open a dataset, see a call arrive
 * live, keyboard, sign out; hostile strings render as text; a user without a grant is refused.
 * Without a browser the test is skipped and says why. Screenshots go to test-artifacts/viewer/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TQ_BIN } from '../cli/run-tq.testing.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(ROOT, 'test-artifacts', 'viewer');
// TQ_CHROMIUM names the browser (and only it); otherwise the usual Debian/Ubuntu paths.
const CANDIDATES = process.env.TQ_CHROMIUM ? [process.env.TQ_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const CHROMIUM = CANDIDATES.find((p) => existsSync(p));
const SKIP = CHROMIUM ? false : `no browser: none of ${CANDIDATES.join(', ')} exists (apt-get install -y chromium, or set TQ_CHROMIUM)`;
if (SKIP) console.log(`# viewer-browser.test.ts skipped: ${SKIP}`);

// CI (.ci/run) installs the browser and sets TQ_REQUIRE_BROWSER=1: there a missing browser fails.
test('a browser is present where one is required', { skip: process.env.TQ_REQUIRE_BROWSER === '1' ? false : 'TQ_REQUIRE_BROWSER is not set' }, () => {
  assert.ok(CHROMIUM, `TQ_REQUIRE_BROWSER=1 but ${SKIP}`);
});

/**
 * The page's document, inside functions that run in the browser (this file is type-checked
 * without the DOM library). Predicates are functions, not strings: the page's CSP forbids eval.
 */
declare const document: any;

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
const API = basic('api', 'pw');

interface Served { child: ChildProcess; base: string }

async function serve(viewerDir: string, usersFile: string): Promise<Served> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TQ_VIEWER_DIR: viewerDir };
  delete env.TQ_FIXTURES;
  const child = spawn(process.execPath, [TQ_BIN, 'serve', '--port', '0', '--users', usersFile, '--quiet'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const deadline = Date.now() + 60_000;
  while (!/tq listening on (\S+)/.test(stderr)) {
    if (child.exitCode !== null || Date.now() > deadline) assert.fail(`tq serve did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child, base: /tq listening on (\S+)/.exec(stderr)![1] };
}

async function api(base: string, path: string, body: unknown, auth = API): Promise<any> {
  const res = await fetch(base + path, { method: 'POST', headers: { Authorization: auth }, body: JSON.stringify(body) });
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text}`);
  return path.includes('stream') ? text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) : JSON.parse(text);
}

/** The hostile-string fixture: markup and script in op names, keys and values. */
const HOSTILE_OP = '<img src=x onerror="window.__pwned=1">';
const HOSTILE_NAME = '<script>window.__pwned=2</script>';
const HOSTILE_KEY = '<b onmouseover="window.__pwned=3">key</b>';
const HOSTILE_VALUE = '</pre><svg onload="window.__pwned=4"><h1>"&amp;';
const hostileCall = (id: string, started: string) => [
  { mode: 'start', req: { start: { project_id: 'hostile/x', id, op_name: HOSTILE_OP, display_name: id === 'h1' ? HOSTILE_NAME : null, trace_id: `t-${id}`, parent_id: null, started_at: started, attributes: { [HOSTILE_KEY]: HOSTILE_VALUE }, inputs: { [HOSTILE_KEY]: HOSTILE_VALUE, ref: 'weave:///hostile/x/object/<i>x</i>:abc' } } } },
  { mode: 'end', req: { end: { project_id: 'hostile/x', id, ended_at: started.replace(':00Z', ':01Z'), output: { [HOSTILE_VALUE]: HOSTILE_KEY }, summary: {} } } },
];

test('the viewer in a real browser', { skip: SKIP, timeout: 300_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'tq-viewer-browser-'));
  mkdirSync(SHOTS, { recursive: true });
  const viewerDir = join(work, 'ui');
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-viewer.mjs'), viewerDir], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  const usersFile = join(work, 'users.json');
  writeFileSync(usersFile, JSON.stringify({ users: [{ name: 'api', password: 'pw', projects: ['*'] }, { name: 'bob', password: 'pw2', projects: ['globex/*'] }] }));
  const served = await serve(viewerDir, usersFile);
  const { base } = served;
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', '--disable-dev-shm-usage'] });
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/.test(m.text())) cspViolations.push(m.text());
    });
    const shot = async (name: string) => {
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      await page.screenshot({ path: join(SHOTS, `${name}.png`) });
    };
    /** Waits until the view has drawn its data (main.ts sets data-rendered after each view). */
    const rendered = async (view: string, go?: () => Promise<unknown>) => {
      await page.evaluate('delete document.body.dataset.rendered');
      await go?.();
      await page.waitForFunction((prefix) => (document.body.dataset.rendered || '').startsWith(prefix), view + ':', { timeout: 30_000 });
      assert.doesNotMatch(await page.evaluate('document.body.dataset.rendered') as string, /:error$/, `${view} ended in an error`);
    };
    /** Waits until the first element matching `selector` has `expected` as attribute `attr` (null: as its text). */
    const waitForValue = (selector: string, attr: string | null, expected: string) => page.waitForFunction(([sel, a, want]) => {
      const el = document.querySelector(sel);
      return !!el && (a === null ? el.textContent : el.getAttribute(a)) === want;
    }, [selector, attr, expected] as const, { timeout: 30_000 });
    /** Goes to a view of the page (a different URL each time) and waits until it has drawn. */
    const visit = (path: string, view: string) => rendered(view, () => page.goto(base + path));
    const texts = (selector: string) => page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));
    const hash = () => page.evaluate('location.hash') as Promise<string>;
    const callIdsInTable = () => page.$$eval('table.data tbody tr a.op', (els) => els.map((e) => new URLSearchParams((e.getAttribute('href') ?? '').split('?')[1]).get('call')));

    await t.test('sign in: a wrong password is refused with the server reason, the right one lists the projects', async () => {
      await page.goto(base + '/');
      await page.waitForSelector('form.signin #password');
      await shot('signin');
      await page.fill('#password', 'nope');
      await page.click('form.signin button[type=submit]');
      await page.waitForSelector('form.signin .error:not([hidden])');
      assert.equal((await texts('form.signin .error'))[0], 'Invalid username or password');
      await page.fill('#password', 'pw');
      await rendered('projects', () => page.click('form.signin button[type=submit]'));
      const { projects } = (await (await fetch(base + "/tq/projects", { headers: { Authorization: API } })).json()) as { projects: any[] };
      const rows = await page.$$eval('table.data tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
      assert.deepEqual(rows, projects.map((p: any) => [p.project, String(p.calls), String(p.threads), String(p.tables), String(p.objects)]));
      await shot('projects');
    });

    await t.test('calls: roots by default, filtered, sorted by a column and paged, as the API answers', async () => {
      await rendered('calls', () => page.click('table.data tbody tr:first-child a'));
      assert.equal(await hash(), '#/calls/acme%2Fevals');
      const roots = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50 });
      assert.deepEqual(await callIdsInTable(), roots.map((c: any) => c.id));
      assert.deepEqual(await texts('table.data tbody tr td:nth-child(1)'), roots.map((c: any) => c.display_name ?? c.op_name.split('/op/')[1].split(':')[0]));
      await shot('calls');

      // All calls with status error: the form writes the URL, the table is the API's answer.
      await page.click('input[name=all]');
      await page.selectOption('select[name=status]', 'error');
      await rendered('calls', () => page.click('.filters button[type=submit]'));
      assert.equal(await hash(), '#/calls/acme%2Fevals?status=error&all=1&dir=desc');
      const errorQuery = { project_id: 'acme/evals', filter: {}, query: { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] } } };
      const errors = await api(base, '/calls/stream_query', { ...errorQuery, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50 });
      assert.ok(errors.length > 0);
      assert.deepEqual(await callIdsInTable(), errors.map((c: any) => c.id));
      assert.deepEqual(await texts('table.data tbody td:nth-child(2)'), errors.map(() => 'error'));
      const { count } = await api(base, '/calls/query_stats', errorQuery);
      assert.equal((await texts('.pager-text'))[0], `1–${errors.length} of ${count}`);
      await shot('calls-filtered');

      // A text search becomes a $contains over the op name and display name.
      await visit('/#/calls/acme%2Fevals?all=1&q=PRIORITY', 'calls');
      const found = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: {}, query: { $expr: { $or: [
        { $contains: { input: { $getField: 'op_name' }, substr: { $literal: 'PRIORITY' }, case_insensitive: true } },
        { $contains: { input: { $getField: 'display_name' }, substr: { $literal: 'PRIORITY' }, case_insensitive: true } }] } }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50 });
      assert.ok(found.length > 0 && found.every((c: any) => /priority/i.test(c.op_name)));
      assert.deepEqual(await callIdsInTable(), found.map((c: any) => c.id));

      // An op and a start time (the browser's time zone, as node's here): op_names and a $gte on started_at.
      await visit('/#/calls/acme%2Fevals?all=1&op=priority_close&from=2025-03-17T00%3A00%3A00', 'calls');
      assert.equal(await page.inputValue('select[name=op]'), 'priority_close');
      const since = new Date('2025-03-17T00:00:00').getTime() / 1000;
      const opAndTime = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: { op_names: ['weave:///acme/evals/op/priority_close:*'] }, query: { $expr: { $gte: [{ $getField: 'started_at' }, { $literal: since }] } }, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50 });
      assert.ok(opAndTime.length > 0 && opAndTime.every((c: any) => c.op_name.includes('/op/priority_close:') && Date.parse(c.started_at) >= since * 1000));
      assert.deepEqual(await callIdsInTable(), opAndTime.map((c: any) => c.id));

      // Sort by a column header (latency, ascending on the second click), then by an input path.
      await visit('/#/calls/acme%2Fevals?all=1', 'calls');
      await rendered('calls', () => page.click('th button[title="sort by summary.weave.latency_ms"]'));
      await rendered('calls', () => page.click('th button[title="sort by summary.weave.latency_ms"]'));
      assert.equal(await hash(), '#/calls/acme%2Fevals?all=1&sort=summary.weave.latency_ms&dir=asc');
      const byLatency = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: {}, sort_by: [{ field: 'summary.weave.latency_ms', direction: 'asc' }], limit: 50 });
      assert.deepEqual(await callIdsInTable(), byLatency.map((c: any) => c.id));
      await visit('/#/calls/acme%2Fevals?all=1&sort=inputs.model&dir=desc', 'calls');
      const byInput = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: {}, sort_by: [{ field: 'inputs.model', direction: 'desc' }], limit: 50 });
      assert.deepEqual(await callIdsInTable(), byInput.map((c: any) => c.id));
      assert.deepEqual((await texts('table.data thead th')).at(-1), 'inputs.model ▼');

      // Page 2 of all 104 calls: offset 50 on the server.
      await visit('/#/calls/acme%2Fevals?all=1', 'calls');
      await rendered('calls', () => page.click('.pager button[data-page=next]'));
      assert.equal(await hash(), '#/calls/acme%2Fevals?all=1&offset=50');
      const second = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: {}, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 50, offset: 50 });
      assert.deepEqual(await callIdsInTable(), second.map((c: any) => c.id));
      assert.equal((await texts('.pager-text'))[0], '51–100 of 104');
    });

    const traceRoot = (await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'asc' }], limit: 1 }))[0];

    await t.test('a trace: the tree in depth-first order by start time, the detail pane as the API answers, keyboard moves', async () => {
      await visit('/#/calls/acme%2Fevals', 'calls');
      await rendered('trace', () => page.click(`table.data a.op[href*="${traceRoot.id}"]`));
      const all = await api(base, '/calls/stream_query', { project_id: 'acme/evals', filter: { trace_ids: [traceRoot.trace_id] }, sort_by: [{ field: 'started_at', direction: 'asc' }], include_costs: true, include_feedback: true });
      const order: string[] = [];
      const walk = (parent: string | null) => {
        for (const c of all.filter((x: any) => x.parent_id === parent)) {
          order.push(c.id);
          walk(c.id);
        }
      };
      walk(null);
      assert.equal(order.length, all.length);
      assert.deepEqual(await page.$$eval('.tree-row[data-id]', (els) => els.map((e) => e.getAttribute('data-id'))), order);
      // Errors are marked in the tree.
      const failed = all.filter((c: any) => c.summary?.weave?.status === 'error').map((c: any) => c.id).sort();
      assert.ok(failed.length > 0);
      assert.deepEqual((await page.$$eval('.tree-row.errored', (els) => els.map((e) => e.getAttribute('data-id')))).sort(), failed);

      await page.waitForSelector('.call-detail');
      const facts = await page.$$eval('.call-detail .facts dd', (els) => els.map((e) => (e.textContent ?? '').trim()));
      const root = all[0];
      assert.equal(root.id, traceRoot.id);
      assert.deepEqual(facts.slice(0, 2), [root.id, root.op_name]);
      assert.equal(facts[3], `${(root.summary.weave.latency_ms / 1000).toFixed(2)} s`);
      const usage = Object.values(root.summary.usage) as Array<{ total_tokens: number }>;
      assert.equal(facts[4], usage.reduce((s, u) => s + u.total_tokens, 0).toLocaleString('en-US'));
      // The inputs are refs, drawn as links to exactly those refs.
      const refs = await page.$$eval('.call-detail [data-section=inputs] a.ref', (els) => els.map((e) => e.getAttribute('data-ref')));
      assert.deepEqual(refs, Object.values(root.inputs));
      // The feedback section holds the API's feedback rows for this call.
      const feedbackIds = await page.$$eval('.call-detail [data-section=feedback] .j-key', (els) => els.filter((e) => e.textContent === 'id').map((e) => (e.nextSibling?.nextSibling?.textContent ?? '')));
      assert.deepEqual(feedbackIds, root.summary.weave.feedback.map((f: any) => JSON.stringify(f.id)));
      await shot('trace');

      // Keyboard: down moves to the next call in the tree and into the URL.
      await page.focus('.tree-row.selected');
      await page.keyboard.press('ArrowDown');
      await waitForValue('.tree-row.selected', 'data-id', order[1]);
      assert.ok((await hash()).endsWith(`?call=${order[1]}`));
      await waitForValue('.call-detail .facts dd', null, order[1]);
      // Left collapses an open call (its subtree leaves the tree), a second Left goes to its parent.
      const rowsBefore = (await page.$$('.tree-row[data-id]')).length;
      await page.keyboard.press('ArrowLeft');
      await waitForValue('.tree-row.selected', 'aria-expanded', 'false');
      const hidden = all.filter((c: any) => c.parent_id === order[1]).length;
      assert.ok(hidden > 0);
      assert.ok((await page.$$('.tree-row[data-id]')).length < rowsBefore);
      await page.keyboard.press('ArrowLeft');
      await waitForValue('.tree-row.selected', 'data-id', order[0]);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(([selector, n]) => document.querySelectorAll(selector).length === n, ['.tree-row[data-id]', rowsBefore] as const);

      // A failed call: marked in the tree, its exception shown (the README's picture).
      await page.click(`.tree-row[data-id="${failed[0]}"]`);
      await waitForValue('.call-detail .facts dd', null, failed[0]);
      const exception = all.find((c: any) => c.id === failed[0]).exception;
      assert.equal((await texts('.call-detail [data-section=exception] pre'))[0], exception);
      await shot('trace-error');
      await visit('/#/trace/acme%2Fevals/no-such-trace', 'trace');
      assert.deepEqual(await texts('main p.empty'), ['No live call of this project has this trace id.']);
    });

    await t.test('follow a ref: the panel shows /refs/read_batch\'s value, and Open goes to the object', async () => {
      await visit('/#/', 'projects');
      await visit(`/#/trace/acme%2Fevals/${traceRoot.trace_id}?call=${traceRoot.id}`, 'trace');
      await page.waitForSelector('.call-detail [data-section=inputs] a.ref');
      const ref = traceRoot.inputs.self as string;
      await page.click(`.call-detail [data-section=inputs] a.ref[data-ref="${ref}"]`);
      await page.waitForSelector('.ref-panel:not([hidden]) .ref-body .json');
      const { vals } = await api(base, '/refs/read_batch', { refs: [ref] });
      const keys = await page.$$eval('.ref-panel .ref-body .json > details > .j-body > .j-line > .j-key, .ref-panel .ref-body .json > details > .j-body > details > summary > .j-key', (els) => els.map((e) => e.textContent));
      assert.deepEqual([...keys].sort(), Object.keys(vals[0]).sort());
      assert.equal((await texts('.ref-panel .ref-text'))[0], ref);
      await shot('ref');
      await rendered('object', () => page.click('.ref-panel a.button'));
      assert.match(await hash(), /^#\/object\/acme%2Fevals\/intent-eval\?digest=/);
    });

    await t.test('a dataset: its versions and its rows, paged from /table/query', async () => {
      await visit('/#/objects/acme%2Fevals?kind=Dataset', 'objects');
      assert.deepEqual(await texts('table.data tbody td:first-child'), ['support-intents']);
      await rendered('object', () => page.click('table.data tbody td:first-child a'));
      await page.waitForSelector('.dataset-rows table');
      const { objs } = await api(base, '/objs/query', { project_id: 'acme/evals', filter: { object_ids: ['support-intents'] }, metadata_only: true });
      assert.equal((await texts('.versions li')).length, objs.length);
      const digest = /table\/(\w+)$/.exec(((await api(base, '/obj/read', { project_id: 'acme/evals', object_id: 'support-intents', digest: objs[0].digest })).obj.val.rows))![1];
      const { rows } = await api(base, '/table/query', { project_id: 'acme/evals', digest, limit: 25 });
      assert.deepEqual(await texts('.dataset-rows table tbody td:nth-child(3)'), rows.map((r: any) => r.val.question));
      assert.equal((await texts('.dataset-rows h2'))[0], `Rows (${rows.length})`);
      await shot('dataset');
    });

    await t.test('threads and feedback list what the API answers', async () => {
      await visit('/#/threads/acme%2Fsupport-bot', 'threads');
      const threads = await api(base, '/threads/stream_query', { project_id: 'acme/support-bot', sort_by: [{ field: 'last_updated', direction: 'desc' }], limit: 50 });
      assert.deepEqual(await texts('table.data tbody td:first-child'), threads.map((x: any) => x.thread_id));
      await shot('threads');
      await visit('/#/feedback/acme%2Fevals', 'feedback');
      const { result } = await api(base, '/feedback/query', { project_id: 'acme/evals', sort_by: [{ field: 'created_at', direction: 'desc' }], limit: 50 });
      assert.deepEqual(await texts('table.data tbody td:nth-child(2)'), result.map((f: any) => f.feedback_type));
    });

    await t.test('hostile strings (markup and script in op names, keys, values) render as text; a new call shows live', async () => {
      await api(base, '/call/upsert_batch', { batch: hostileCall('h1', '2025-01-01T00:00:00Z') });
      await visit('/#/calls/hostile%2Fx', 'calls');
      assert.deepEqual(await texts('table.data tbody td:first-child'), [HOSTILE_NAME]);
      await rendered('trace', () => page.click('table.data tbody a.op'));
      await page.waitForSelector('.call-detail');
      assert.equal((await texts('.tree-op'))[0], HOSTILE_NAME);
      const keys = await texts('.call-detail [data-section=inputs] .j-key');
      assert.ok(keys.includes(HOSTILE_KEY), keys.join(' | '));
      const values = await texts('.call-detail [data-section=inputs] .j-str');
      assert.ok(values.includes(JSON.stringify(HOSTILE_VALUE)), values.join(' | '));
      assert.equal((await texts('.call-detail [data-section=output] .j-key'))[0], HOSTILE_VALUE);
      assert.equal((await texts('.call-detail .facts dd'))[1], HOSTILE_OP);
      await page.click('.call-detail [data-section=attributes] > summary');
      await shot('hostile');
      assert.equal(await page.evaluate('window.__pwned'), undefined);
      assert.equal(await page.evaluate("document.querySelectorAll('main img, main svg, main script, main b, main h1 h1').length"), 0);

      // Live: another call arrives while the table is shown.
      await visit('/#/calls/hostile%2Fx', 'calls');
      await api(base, '/call/upsert_batch', { batch: hostileCall('h2', '2025-01-02T00:00:00Z') });
      await page.waitForSelector('.live .new-calls', { timeout: 20_000 });
      assert.equal((await texts('.live .new-calls'))[0], '1 new call — show');
      await rendered('calls', () => page.click('.live .new-calls'));
      assert.deepEqual(await callIdsInTable(), ['h2', 'h1']);
    });

    await t.test('dark theme, by the t key, still readable (screenshot)', async () => {
      await visit(`/#/trace/acme%2Fevals/${traceRoot.trace_id}?call=${traceRoot.id}`, 'trace');
      await page.waitForSelector('.call-detail');
      await page.keyboard.press('t');
      const theme = await page.evaluate('document.documentElement.dataset.theme');
      assert.equal(theme, 'dark');
      await shot('trace-dark');
      await page.keyboard.press('t');
      assert.equal(await page.evaluate('document.documentElement.dataset.theme'), 'light');
    });

    await t.test('sign out: the session is gone and the form is back', async () => {
      await page.click('header .signout');
      await page.waitForSelector('form.signin');
      assert.equal(await page.evaluate("sessionStorage.getItem('tq.viewer.session')"), null);
      await page.goto(base + '/#/calls/acme%2Fevals');
      await page.waitForSelector('form.signin');
    });

    await t.test('a user without a grant sees which project is refused; a 401 later shows the form again', async () => {
      await page.fill('#user', 'bob');
      await page.fill('#password', 'pw2');
      await rendered('calls', () => page.click('form.signin button[type=submit]')).catch(() => undefined);
      await page.waitForSelector('main .error.refused');
      assert.equal((await texts('main .error.refused'))[0], "No access Project acme/evals is not granted to you. User 'bob' has no access to project 'acme/evals' The projects you may read");
      await shot('refused');
      await visit('/#/', 'projects');
      assert.deepEqual(await texts('table.data tbody td:first-child'), ['globex/rag-search']);
      // Credentials that stop working: the next request's 401 brings the form back with the reason.
      await page.evaluate(`sessionStorage.setItem('tq.viewer.session', JSON.stringify({ user: 'bob', token: ${JSON.stringify(Buffer.from('bob:changed').toString('base64'))} }))`);
      await page.goto(base + '/#/calls/globex%2Frag-search');
      await page.waitForSelector('form.signin .error:not([hidden])');
      assert.equal((await texts('form.signin .error'))[0], 'Signed out: Invalid username or password');
    });

    assert.deepEqual(pageErrors, []);
    assert.deepEqual(cspViolations, []);
  } finally {
    await browser?.close();
    served.child.kill('SIGTERM');
    await new Promise((r) => served.child.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
});
