/**
 * Test support: `tq serve`'s server over loopback (port 0) with every real route, on the
 * bundled demo data or on a given engine, and one all-projects user `api:pw`.
 */
import { allRoutes } from '../routes.ts';
import type { Engine } from '../api/types.ts';
import { createEngine } from '../engine.ts';
import { BUNDLED_FIXTURES, loadFixtures } from '../io/load-fixtures.ts';
import { Users } from './basic-auth.ts';
import { createTqServer, type TqServer, type TqServerOptions } from './server.ts';

export const API_AUTH = 'Basic ' + Buffer.from('api:pw').toString('base64');

export async function demoEngine(): Promise<Engine> {
  const engine = createEngine();
  await loadFixtures(engine, BUNDLED_FIXTURES);
  return engine;
}

export async function startDemoServer(extra: Partial<TqServerOptions> = {}): Promise<{ srv: TqServer; base: string }> {
  const srv = createTqServer({
    engine: extra.engine ?? (await demoEngine()),
    routes: allRoutes(),
    users: new Users([{ name: 'api', password: 'pw', projects: ['*'] }]),
    ...extra,
  });
  const { port } = await srv.listen('127.0.0.1', 0);
  return { srv, base: `http://127.0.0.1:${port}` };
}

/** POST a JSON body as `api`. */
export const postJson = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, { method: 'POST', headers: { Authorization: API_AUTH, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
