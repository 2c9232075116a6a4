import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf } from '../core/errors.testing.ts';
import type { TqServer } from './server.ts';
import { createInjector, InjectedError, parseDelayRange, parsePrefer } from './inject.ts';
import { postJson, startDemoServer } from './serving.testing.ts';

describe('parsing', () => {
  it('--delay MS or MIN-MAX', () => {
    assert.deepEqual(parseDelayRange('200'), { min: 200, max: 200 });
    assert.deepEqual(parseDelayRange('100-300'), { min: 100, max: 300 });
    assert.equal(parseDelayRange('fast'), "must be MS or MIN-MAX in milliseconds, got 'fast'");
    assert.equal(parseDelayRange('300-100'), "the range must not decrease, got '300-100'");
    assert.equal(parseDelayRange('0-60001'), "must be at most 60000 ms, got '0-60001'");
  });

  it('Prefer: code and delay, case-insensitive, quoted, with parameters; other preferences ignored', () => {
    assert.deepEqual(parsePrefer(undefined), {});
    assert.deepEqual(parsePrefer('return=minimal, respond-async'), {});
    assert.deepEqual(parsePrefer('Code=503, delay="20"; x=y'), { code: 503, delay: 20 });
    assert.deepEqual(parsePrefer(['code=429', 'delay=0']), { code: 429, delay: 0 });
  });

  it('a bad code or delay is a 400 naming the header', () => {
    for (const [header, reason] of [
      ['code=200', "Invalid Prefer header: code must be an error status from 400 to 599, got '200'"],
      ['code=abc', "Invalid Prefer header: code must be an error status from 400 to 599, got 'abc'"],
      ['delay=-5', "Invalid Prefer header: delay must be a whole number of milliseconds from 0 to 60000, got '-5'"],
      ['delay=60001', "Invalid Prefer header: delay must be a whole number of milliseconds from 0 to 60000, got '60001'"],
    ]) {
      const e = errorOf(() => parsePrefer(header));
      assert.deepEqual([e.status, e.body()], [400, { reason }], header);
    }
  });

  it('the injector waits within the --delay range; Prefer: delay replaces it', async () => {
    const waits: number[] = [];
    const wait = async (ms: number) => void waits.push(ms);
    let r = 0;
    const ranged = createInjector({ min: 40, max: 60 }, () => r, wait);
    for (r of [0, 0.5, 0.999]) assert.equal(await ranged.apply(undefined), undefined);
    assert.deepEqual(waits, [40, 50, 60]);
    const error = await ranged.apply('delay=0, code=502');
    assert.deepEqual(waits, [40, 50, 60], 'delay=0 waits not at all');
    assert.ok(error instanceof InjectedError);
    assert.deepEqual([error.status, error.body()], [502, { reason: 'Injected error: Prefer: code=502' }]);
    await createInjector(undefined, Math.random, wait).apply('delay=7');
    assert.deepEqual(waits.slice(3), [7]);
    assert.equal(await createInjector(undefined, Math.random, wait).apply(undefined), undefined);
    assert.equal(waits.length, 4, 'no --delay, no Prefer: no wait');
  });
});

describe('injection in a running server', () => {
  let srv: TqServer, base: string;
  before(async () => ({ srv, base } = await startDemoServer()));
  after(() => srv.close());

  it('Prefer: code=503 answers 503 with a reason; the next request is served', async () => {
    const res = await postJson(base, '/calls/stream_query', { project_id: 'acme/evals', limit: 1 }, { Prefer: 'code=503' });
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { reason: 'Injected error: Prefer: code=503' });
    const ok = await postJson(base, '/calls/stream_query', { project_id: 'acme/evals', limit: 1 });
    assert.equal(ok.status, 200);
    assert.equal((await ok.text()).split('\n').length, 2);
  });

  it('Prefer: delay=150 delays the answer', async () => {
    const t = performance.now();
    const res = await postJson(base, '/calls/stream_query', { project_id: 'acme/evals', limit: 1 }, { Prefer: 'delay=150' });
    await res.text();
    assert.equal(res.status, 200);
    assert.ok(performance.now() - t >= 145);
  });

  it('credentials are checked first: no injection for an unauthenticated request', async () => {
    const res = await fetch(base + '/calls/stream_query', { method: 'POST', headers: { Prefer: 'code=503' }, body: '{}' });
    assert.equal(res.status, 401);
    await res.arrayBuffer();
  });

  it('a bad Prefer header is a 400', async () => {
    const res = await postJson(base, '/calls/stream_query', { project_id: 'acme/evals' }, { Prefer: 'code=600' });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { reason: "Invalid Prefer header: code must be an error status from 400 to 599, got '600'" });
  });
});

describe('--delay in a running server', () => {
  let srv: TqServer, base: string;
  before(async () => ({ srv, base } = await startDemoServer({ inject: createInjector({ min: 120, max: 120 }) })));
  after(() => srv.close());

  it('delays every response', async () => {
    const t = performance.now();
    const res = await postJson(base, '/calls/stream_query', { project_id: 'acme/evals', limit: 1 });
    await res.text();
    assert.ok(performance.now() - t >= 115);
  });
});
