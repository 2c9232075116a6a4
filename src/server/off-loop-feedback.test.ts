/**
 * Issue 22 §4: `/feedback/batch/create`, `/feedback/create` and `/feedback/replace` are split routes
 * (src/write/prepared-feedback.ts). A body of 1 MiB or more is checked and processed in the
 * worker; the answers must be the synchronous path's byte for byte (every status the routes
 * give, payloads keeping `1.0`, `1e400`, `-0`, integers beyond 2^53, reactions processed), the
 * stored rows the same, and one max-size batch must leave the event loop free for others.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runRoute } from '../api/run-route.ts';
import type { Engine, RequestContext } from '../api/types.ts';
import { tqError } from '../core/errors.ts';
import { findRoute } from '../routes.ts';
import { DEFAULT_MAX_BODY_BYTES, TAKE_TURNS_FROM_BYTES } from './server.ts';
import { startDemoServer } from './serving.testing.ts';
import { ALL_ACCESS, assertLoopFreeDuring, countingEngine, listBody, post, serverForBob, syncAnswer } from './off-loop.testing.ts';

const P = 'acme/fb';
const FILLER = 'x'.repeat(900);

/** As the server's user `bob`: every project but acme/secret. */
const BOB: RequestContext = {
  userId: 'bob',
  authorize(projectId) {
    if (projectId === 'acme/secret') throw tqError('TQ_PROJECT_FORBIDDEN', { user: 'bob', project: projectId });
  },
  canRead: (projectId) => projectId !== 'acme/secret',
};

/**
 * Number spellings a native JSON.parse would lose, written in place of their placeholders:
 * a float spelled `1.0`, `1E2` (Python: `100.0`), `1e400` (Infinity), `-0` and `-0.0`, an
 * integer beyond 2^53; inside arrays, nested objects and a `__proto__` key.
 */
const SPELLINGS: Array<[string, string]> = [
  ['"@F1"', '1.0'],
  ['"@E2"', '1E2'],
  ['"@INF"', '1e400'],
  ['"@NZ"', '-0'],
  ['"@NZF"', '-0.0'],
  ['"@BIG"', '12345678901234567890123'],
];
const spelled = (text: string) => SPELLINGS.reduce((t, [from, to]) => t.replaceAll(from, to), text);

/** Item `i` of a batch: notes, free-form payloads with spellings (every 3rd), reactions (every 5th). */
function item(i: number, project = P): Record<string, unknown> {
  const base = { project_id: project, weave_ref: `weave:///${project}/call/c${i}`, ...(i % 7 === 0 ? {} : { id: `f${i}` }), ...(i % 11 === 0 ? { svc_user_id: 'carol' } : {}) };
  if (i % 5 === 0) return { ...base, feedback_type: 'wandb.reaction.1', payload: { emoji: i % 10 === 0 ? '👍🏽' : '🎉', text: FILLER } };
  if (i % 3 === 0) {
    return {
      ...base,
      feedback_type: 'score',
      payload: { text: FILLER, f: '@F1', e: '@E2', inf: '@INF', zero: '@NZ', zf: '@NZF', big: '@BIG', list: [1, '@F1', [0.5, '@BIG']], '10': 1, '9': '@F1', nested: { deep: { x: '@E2' } }, ['__proto__']: { y: '@F1' } },
    };
  }
  return { ...base, feedback_type: 'wandb.note.1', payload: { note: `note ${i} ${FILLER.slice(0, 200)}`, score: 0.25 } };
}

const batchBody = (bytes: number, at: (i: number) => Record<string, unknown> = (i) => item(i)) => listBody(bytes, '{"batch":[', ']}', (i) => spelled(JSON.stringify(at(i))));
/** One `/feedback/create` whose payload holds the whole body. */
const bigCreate = (bytes: number, fields: Record<string, unknown> = {}) =>
  listBody(bytes, `${JSON.stringify({ project_id: P, weave_ref: `weave:///${P}/call/big`, feedback_type: 'score', ...fields }).slice(0, -1)},"payload":{"f":"@F1","list":[`, ']}}', (i) => spelled(JSON.stringify({ i, v: i % 2 ? '@BIG' : '@INF', text: FILLER })));

/** Every feedback row of a project as `/feedback/query` answers it (payloads included). */
function storedFeedback(engine: Engine, project: string): string {
  const r = runRoute(findRoute('/feedback/query')!, engine, { kind: 'text', text: JSON.stringify({ project_id: project }) }, ALL_ACCESS);
  assert.equal(r.kind, 'json');
  return r.kind === 'json' ? (r.text ?? JSON.stringify(r.body)) : '';
}

test('a large feedback write gets the synchronous answer, byte for byte, and stores the same rows', async () => {
  for (const path of ['/feedback/batch/create', '/feedback/create', '/feedback/replace']) assert.ok(findRoute(path)!.prepare, `${path} is a split route`);
  const bytes = 2 * TAKE_TURNS_FROM_BYTES;
  const engine = countingEngine(7);
  const reference = countingEngine(7);
  const { srv, base, bob } = await serverForBob(engine, [P]);
  try {
    const cases: Array<[string, string]> = [
      ['/feedback/batch/create', batchBody(bytes)],
      // The same items again (ids given are kept; the others drawn anew).
      ['/feedback/batch/create', batchBody(bytes)],
      ['/feedback/create', bigCreate(bytes)],
      ['/feedback/create', bigCreate(bytes, { id: 'given', svc_user_id: 'dave' })],
      // 422 (the model, in the worker): an item without weave_ref; not JSON.
      ['/feedback/batch/create', batchBody(bytes, (i) => (i === 300 ? { ...item(i), weave_ref: undefined } : item(i)))],
      ['/feedback/batch/create', batchBody(bytes).slice(0, -1)],
      // 400 from the checks, answered after authorization: a reaction that is no emoji, an empty
      // note, a call_ref on a note; a payload too long for a reaction.
      ['/feedback/batch/create', batchBody(bytes, (i) => (i === 400 ? { ...item(i), feedback_type: 'wandb.reaction.1', payload: { emoji: 'no emoji here' } } : item(i)))],
      ['/feedback/batch/create', batchBody(bytes, (i) => (i === 500 ? { ...item(i), feedback_type: 'wandb.note.1', payload: { note: '' } } : item(i)))],
      ['/feedback/batch/create', batchBody(bytes, (i) => (i === 600 ? { ...item(i), call_ref: `weave:///${P}/call/x` } : item(i)))],
      ['/feedback/create', bigCreate(bytes, { annotation_ref: `weave:///${P}/object/spec:v1` })],
      // 400 at the grant: a malformed project id; 403: no grant. A refused item before the
      // forbidden one is still a 403: the projects are authorized first, as before.
      ['/feedback/batch/create', batchBody(bytes, (i) => item(i, i === 900 ? 'acme/..' : P))],
      ['/feedback/batch/create', batchBody(bytes, (i) => (i === 100 ? { ...item(i), payload: { emoji: 'x' }, feedback_type: 'wandb.reaction.1' } : item(i, i === 800 ? 'acme/secret' : P)))],
      ['/feedback/create', bigCreate(bytes, { project_id: 'acme/secret' })],
      // /feedback/replace: the row `given` replaced by a new one; a replacement refused by a
      // check (400) or by its model (422: no feedback_id) removes nothing.
      ['/feedback/replace', bigCreate(bytes, { feedback_id: 'given', id: 'replacement' })],
      ['/feedback/replace', bigCreate(bytes, { feedback_id: 'replacement', annotation_ref: `weave:///${P}/object/spec:v1` })],
      ['/feedback/replace', bigCreate(bytes)],
    ];
    const answers: Array<{ status: number; text: string }> = [];
    for (const [path, body] of cases) {
      assert.ok(body.length >= TAKE_TURNS_FROM_BYTES);
      const got = await post(base, path, body, bob);
      assert.deepEqual(got, syncAnswer(reference, path, body, BOB), `${path} ${body.slice(0, 80)}`);
      answers.push(got);
    }
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 422, 422, 400, 400, 400, 400, 400, 403, 403, 200, 400, 422]);
    const first = answers[0];
    // Spellings kept in the answer (1e400 is written as a compact writer writes it: null).
    assert.match(first.text, /"f":1\.0,"e":100\.0,"inf":null,"zero":0,"zf":-0\.0,"big":12345678901234567890123,"list":\[1,1\.0,\[0\.5,12345678901234567890123\]\]/);
    assert.match(first.text, /"payload":\{"emoji":"👍🏽","text":"x+","alias":":thumbs_up_medium_skin_tone:","detoned":"👍","detoned_alias":":thumbs_up:"\}/);
    assert.equal(storedFeedback(engine, P), storedFeedback(reference, P));
    const ids = new Set(engine.store.project(P)!.feedback.map((f) => f.id));
    assert.ok(ids.has('replacement') && !ids.has('given'), 'the replaced row is gone, its replacement kept');
    assert.ok(engine.store.project(P)!.feedback.length > 5000, `only ${engine.store.project(P)!.feedback.length} rows stored`);
    // The stored values, number by number (LosslessNumbers, -0), as the synchronous path stored them.
    assert.deepStrictEqual(engine.store.project(P)!.feedback.map((f) => f.payload), reference.store.project(P)!.feedback.map((f) => f.payload));
    assert.equal(engine.store.project('acme/secret'), undefined);
    assert.equal(engine.store.project('acme/..'), undefined);
  } finally {
    await srv.close();
  }
});

test('/feedback/batch/create: one max-size body leaves the event loop free for others', async () => {
  const { srv, base } = await startDemoServer({ engine: countingEngine(7) });
  try {
    // Characters, not bytes: each reaction's emoji is a few bytes more in UTF-8.
    const body = Buffer.from(batchBody(DEFAULT_MAX_BODY_BYTES - 64 * 1024));
    assert.ok(body.length <= DEFAULT_MAX_BODY_BYTES && body.length > DEFAULT_MAX_BODY_BYTES - 128 * 1024);
    // Warm the worker so that the measured request is the work itself.
    assert.equal((await post(base, '/feedback/batch/create', batchBody(TAKE_TURNS_FROM_BYTES + 1024))).status, 200);
    await assertLoopFreeDuring(base, '/feedback/batch/create', body);
  } finally {
    await srv.close();
  }
});
