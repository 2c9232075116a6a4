import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Route } from './types.ts';
import { matchPath, routesForPath } from './route-path.ts';

const route = (path: string, method: 'GET' | 'POST' = 'POST'): Route => ({ path, method, body: 'json', run: () => ({ kind: 'json', body: null }) });

test('a template segment takes one non-empty, percent-decoded segment', () => {
  assert.deepEqual(matchPath('/v2/{entity}/{project}/call/start', '/v2/acme/my%20bot/call/start'), { entity: 'acme', project: 'my bot' });
  assert.equal(matchPath('/v2/{entity}/{project}/call/start', '/v2/acme//call/start'), null);
  assert.equal(matchPath('/v2/{entity}/{project}/call/start', '/v2/acme/p/x/call/start'), null);
  assert.equal(matchPath('/v2/{entity}/{project}/call/start', '/v2/acme/p/call/end'), null);
  assert.equal(matchPath('/v2/{entity}/{project}/call/start', '/v2/%E0%A4%A/p/call/start'), null);
  assert.deepEqual(matchPath('/health', '/health'), {});
});

test('exact paths win over templates; all methods of the matched path are returned', () => {
  const routes = [route('/v2/{entity}/{project}/call/start'), route('/v2/{entity}/{project}/call/start', 'GET'), route('/v2/x/y/call/start')];
  assert.deepEqual(routesForPath(routes, '/v2/x/y/call/start'), { routes: [routes[2]], params: {} });
  const t = routesForPath(routes, '/v2/a/b/call/start');
  assert.deepEqual(t?.params, { entity: 'a', project: 'b' });
  assert.deepEqual(t?.routes, [routes[0], routes[1]]);
  assert.equal(routesForPath(routes, '/nope'), null);
});
