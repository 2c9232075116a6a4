/**
 * Event-loop stalls of tq serve's server under retrying max-size uploads (issue 22 §4), the
 * complement of bench/upload-pressure.ts: the server runs in this process (demo data) with a
 * 50 ms timer that records every gap over 1.5 s; a child process sends N concurrent 32 MiB
 * /table/create bodies, each retried 1 s after any answer but 200. Not a test: run it by hand.
 *
 *   node --import tsx bench/loop-stall.ts [N=120]
 */
import { spawn } from 'node:child_process';
import { allRoutes } from '../src/routes.ts';
import { createEngine } from '../src/engine.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../src/io/load-fixtures.ts';
import { Users } from '../src/server/basic-auth.ts';
import { createTqServer } from '../src/server/server.ts';

const API_AUTH = 'Basic ' + Buffer.from('api:pw').toString('base64');

async function startDemoServer() {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  const srv = createTqServer({ engine, routes: allRoutes(), users: new Users([{ name: 'api', password: 'pw', projects: ['*'] }]) });
  const { port } = await srv.listen('127.0.0.1', 0);
  return { srv, base: `http://127.0.0.1:${port}` };
}
const { srv, base } = await startDemoServer();
const port = new URL(base).port;
const gaps: string[] = [];
let last = performance.now();
const t0 = last;
setInterval(() => { const now = performance.now(); if (now - last > 1500) gaps.push(`${((last - t0) / 1000).toFixed(1)}s +${(now - last).toFixed(0)}ms`); last = now; }, 50);
const CLIENT = `
const { request } = require('node:http');
const [port, auth, count] = process.argv.slice(1);
const filler = 'x'.repeat(900); const items = [];
let size = 60; for (let i = 0; size < 32*1024*1024 - 2048; i++) { const it = JSON.stringify({ i, text: filler }); items.push(it); size += it.length + 1; }
const body = Buffer.from('{"table":{"project_id":"bench/uploads","rows":[' + items.join(',') + ']}}');
const post = () => new Promise((resolve) => { const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/table/create', agent: false, headers: { Authorization: auth, 'Content-Length': body.length } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); }); req.on('error', () => resolve(0)); req.end(body); });
(async () => { await Promise.all(Array.from({ length: Number(process.argv[3]) }, async () => { for (;;) { const s = await post(); if (s === 200) return; await new Promise((r) => setTimeout(r, 1000)); } })); process.exit(0); })();
`;
const child = spawn(process.execPath, ["-e", CLIENT, port, API_AUTH, process.argv[2] ?? "120"], { stdio: 'inherit' });
await new Promise((r) => child.on('exit', r));
console.log('wall', ((performance.now() - t0) / 1000).toFixed(1), 'gaps>1.5s:', gaps.length, gaps.join(' | '));
await srv.close(); process.exit(0);
