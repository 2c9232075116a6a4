/**
 * semantics.md#project-ids over HTTP (issue 11 §4): one project-id validation on every route, reads
 * included; the order is credentials (401), then the id (400), then the grant (403).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allRoutes } from '../routes.ts';
import { createEngine } from '../engine.ts';
import { Users } from './basic-auth.ts';
import { createTqServer } from './server.ts';

test('read and write routes answer a malformed project id with the same 400, after 401 and before 403', async () => {
  const tq = createTqServer({
    engine: createEngine(),
    routes: allRoutes(),
    users: new Users([
      { name: 'g', password: 'p', projects: ['globex/*'] },
      { name: 'a', password: 'p', projects: ['acme/*'] },
    ]),
  });
  const { port } = await tq.listen('127.0.0.1', 0);
  const post = async (path: string, body: unknown, user = 'a:p') => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(user).toString('base64') },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  try {
    const start = (project_id: string) => ({ start: { project_id, id: 'c', op_name: 'op', trace_id: 't', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } });
    const cases: Array<[string, string]> = [
      ['acme/x/y', 'expected the form <entity>/<project>'],
      ['acme/../globex/rag-search', 'expected the form <entity>/<project>'],
      ['acme/a\u0000b', 'whitespace, control and zero-width characters are not allowed'],
      ['acme/a\u200bb', 'whitespace, control and zero-width characters are not allowed'],
      ['acme/..', "a '..' part is not allowed"],
    ];
    for (const [project, why] of cases) {
      const shown = project.replace('\u0000', '\\u0000').replace('\u200b', '\\u200b');
      const expected = { status: 400, body: { reason: `Invalid project_id '${shown}': ${why}` } };
      assert.deepEqual(await post('/calls/stream_query', { project_id: project }), expected, project);
      assert.deepEqual(await post('/threads/stream_query', { project_id: project }), expected, project);
      assert.deepEqual(await post('/call/start', start(project)), expected, project);
      // Before the grant check: a user with no grant on acme gets the same 400 ...
      assert.deepEqual(await post('/calls/stream_query', { project_id: project }, 'g:p'), expected, project);
      // ... and after the credential check.
      assert.equal((await post('/calls/stream_query', { project_id: project }, 'a:wrong')).status, 401);
    }
    assert.equal((await post('/calls/stream_query', { project_id: 'acme/x' }, 'g:p')).status, 403);
    assert.equal((await post('/calls/stream_query', { project_id: 'acme/x' })).status, 200);
  } finally {
    await tq.close();
  }
});
