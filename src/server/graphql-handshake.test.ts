/**
 * POST /graphql: every document the Weave SDKs send before tracing (recorded with its source in
 * graphql-handshake.fixtures.json) answered with the fields the SDK reads; grants; anything else
 * a GraphQL error naming the operation; bounded parsing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RequestContext } from '../api/types.ts';
import { runRoute } from '../api/run-route.ts';
import { createEngine } from '../engine.ts';
import { TqError } from '../core/errors.ts';
import { Users } from './basic-auth.ts';
import { answerGraphql, graphqlRoute, MAX_GRAPHQL_TOKENS } from './graphql-handshake.ts';
import { findRoute } from '../routes.ts';

interface Fixture {
  name: string;
  source: string;
  reads: string[];
  query: string;
  variables: Record<string, unknown>;
}
const FIXTURES = (JSON.parse(readFileSync(new URL('./graphql-handshake.fixtures.json', import.meta.url), 'utf8')) as { documents: Fixture[] }).documents;
const fixture = (name: string) => FIXTURES.find((f) => f.name === name)!;

const users = new Users([
  { name: 'api', password: 'k', projects: ['team/*'] },
  { name: 'carol', password: 'c', projects: ['carol/*'] },
]);
const ctxOf = (user: string, password: string): RequestContext => users.authenticate('Basic ' + Buffer.from(`${user}:${password}`).toString('base64'));
const API = ctxOf('api', 'k');
/** The answer as it goes on the wire (graphql-js builds null-prototype objects). */
const answer = (...args: Parameters<typeof answerGraphql>) => JSON.parse(JSON.stringify(answerGraphql(...args))) as { data?: unknown; errors?: Array<{ message: string }> };

function engineWithCall() {
  const engine = createEngine();
  const start = findRoute('/call/start')!;
  runRoute(start, engine, { kind: 'value', value: { start: { project_id: 'team/traced', op_name: 'op', started_at: '2024-01-01T00:00:00Z', attributes: {}, inputs: {} } } }, API);
  return engine;
}

const vars = (f: Fixture, entity: string, project: string) =>
  JSON.parse(JSON.stringify(f.variables).replaceAll('ENTITY', entity).replaceAll('PROJECT', project)) as Record<string, unknown>;

test('every recorded document parses, validates and names where it came from', () => {
  assert.deepEqual(FIXTURES.map((f) => f.name), ['ts-default-entity', 'py-default-entity', 'py-default-entity-async', 'py-project', 'py-upsert-project']);
  for (const f of FIXTURES) {
    assert.match(f.source, /weave/, f.name);
    const result = answer(engineWithCall(), API, { query: f.query, variables: vars(f, 'team', 'traced') });
    assert.equal(result.errors, undefined, `${f.name}: ${JSON.stringify(result.errors)}`);
  }
});

test('viewer: the authenticated user, default entity --entity or else the user name (what both SDKs read)', () => {
  const engine = createEngine();
  for (const name of ['ts-default-entity', 'py-default-entity']) {
    const f = fixture(name);
    assert.deepEqual(answer(engine, API, { query: f.query, variables: f.variables }), { data: { viewer: { username: 'api', defaultEntity: { name: 'api' } } } });
    assert.deepEqual(answer(engine, API, { query: f.query }, { defaultEntity: 'team' }), { data: { viewer: { username: 'api', defaultEntity: { name: 'team' } } } });
  }
  assert.deepEqual(answer(engine, API, { query: fixture('py-default-entity-async').query }, { defaultEntity: 'team' }), { data: { viewer: { defaultEntity: { name: 'team' } } } });
});

test('the project lookup: {name} once the project holds data, null before, null without a grant', () => {
  const engine = engineWithCall();
  const f = fixture('py-project');
  assert.deepEqual(answer(engine, API, { query: f.query, variables: vars(f, 'team', 'traced') }), { data: { project: { name: 'traced' } } });
  assert.deepEqual(answer(engine, API, { query: f.query, variables: vars(f, 'team', 'fresh') }), { data: { project: null } });
  // carol has no grant on team/*: W&B hides what one cannot see.
  assert.deepEqual(answer(engine, ctxOf('carol', 'c'), { query: f.query, variables: vars(f, 'team', 'traced') }), { data: { project: null } });
});

test('project creation answers the model and writes nothing; without a grant it is a GraphQL error', () => {
  const engine = createEngine();
  const f = fixture('py-upsert-project');
  assert.deepEqual(answer(engine, API, { query: f.query, variables: vars(f, 'team', 'fresh') }), { data: { upsertModel: { model: { name: 'fresh', description: null } } } });
  assert.equal(engine.store.projects.size, 0);
  const refused = JSON.parse(JSON.stringify(answer(engine, ctxOf('carol', 'c'), { query: f.query, variables: vars(f, 'team', 'fresh') })));
  assert.deepEqual(refused, {
    errors: [{ message: "permission denied: user 'carol' has no access to project 'team/fresh'", locations: [{ line: 3, column: 9 }], path: ['upsertModel'] }],
    data: { upsertModel: null },
  });
  const bad = answer(engine, API, { query: f.query, variables: vars(f, 'team', 'a/b') });
  assert.match(String(bad.errors?.[0].message), /^Invalid project 'team\/a\/b': /);
  const nameless = answer(engine, API, { query: 'mutation { upsertModel(input: {entityName: "team"}) { model { name } } }' });
  assert.equal(nameless.errors?.[0].message, 'upsertModel: input.name is required to create a project');
});

test('matched by selection: aliases, fragments and field order are GraphQL, not string compares', () => {
  const engine = engineWithCall();
  const query = `
    query Anything { me: viewer { ...V } p: project(entityName: "team", name: "traced") { entityName name id } }
    fragment V on User { defaultEntity { name } username }`;
  assert.deepEqual(answer(engine, API, { query }, { defaultEntity: 'team' }), {
    data: { me: { defaultEntity: { name: 'team' }, username: 'api' }, p: { entityName: 'team', name: 'traced', id: 'team/traced' } },
  });
});

test('any other operation: the standard validation error plus one naming the operation', () => {
  const engine = createEngine();
  const result = JSON.parse(JSON.stringify(answer(engine, API, { query: 'query ServerInfo { serverInfo { frontendHost } }' })));
  assert.deepEqual(result, {
    errors: [
      { message: "tq answers only the Weave SDKs' handshake (viewer, project, upsertModel): operation 'ServerInfo' is not served", extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
      { message: 'Cannot query field "serverInfo" on type "Query".', locations: [{ line: 1, column: 20 }] },
    ],
  });
  const anonymous = answer(engine, API, { query: '{ entity(name: "x") { readOnly } }' });
  assert.match(String(anonymous.errors?.[0].message), /operation \(an anonymous query\) is not served/);
  const syntax = JSON.parse(JSON.stringify(answer(engine, API, { query: 'query {' })));
  assert.deepEqual(syntax, { errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 8 }] }] });
});

test('bounded: a document of more than MAX_GRAPHQL_TOKENS tokens is refused before it is walked', () => {
  const query = `{ viewer { ${'username '.repeat(MAX_GRAPHQL_TOKENS)} } }`;
  const result = answer(createEngine(), API, { query });
  assert.equal(result.errors?.length, 1);
  assert.match(String(result.errors?.[0].message), /Document contains more that 2000 tokens/);
  const many = answer(createEngine(), API, { query: `{ ${Array.from({ length: 50 }, (_, i) => `f${i}`).join(' ')} }` });
  // The one naming the operation, 10 validation errors, and graphql-js's "Too many validation errors".
  assert.equal(many.errors?.length, 12);
  assert.match(String(many.errors?.[11].message), /Too many validation errors/);
});

test('a body that is not a GraphQL request is a 400 naming what is wrong; the route answers JSON', () => {
  const route = graphqlRoute({ defaultEntity: 'team' });
  const engine = createEngine();
  const fail = (value: unknown) => {
    try {
      runRoute(route, engine, { kind: 'value', value }, API);
    } catch (e) {
      return { status: (e as TqError).status, body: (e as TqError).body() };
    }
    return assert.fail('no error');
  };
  assert.deepEqual(fail([1]), { status: 400, body: { reason: 'A GraphQL request is a JSON object {"query": ..., "variables": ...}' } });
  assert.deepEqual(fail({ variables: {} }), { status: 400, body: { reason: 'The GraphQL request needs "query", a string' } });
  assert.deepEqual(fail({ query: '{viewer{username}}', variables: [1] }), { status: 400, body: { reason: '"variables" must be an object' } });
  assert.deepEqual(fail({ query: '{viewer{username}}', operationName: 3 }), { status: 400, body: { reason: '"operationName" must be a string' } });
  const ok = runRoute(route, engine, { kind: 'text', text: JSON.stringify({ query: fixture('ts-default-entity').query, variables: {}, operationName: 'DefaultEntity' }) }, API);
  assert.deepEqual(ok, { kind: 'json', body: { data: { viewer: { username: 'api', defaultEntity: { name: 'team' } } } } });
});
