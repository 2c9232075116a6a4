/**
 * semantics.md#deviations: the cases tagged `deviates-from-production` are exactly those whose answer
 * depends on tq's deliberate deviations. Proof by running the corpus twice in-process: once
 * as tq answers, once with the threads endpoint answering by production's rules (deleted turns
 * count; unfinished threads drop out after paging) and /refs/read_batch by production's (a path
 * stops at a nested object ref). A case fails the second run if and only if it carries the tag.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { CaseRequest } from '../src/check/case.ts';
import { createEngineTarget } from '../src/check/engine-target.ts';
import { runCases } from '../src/check/runner.ts';
import { DEVIATES_TAG, type Target, type TargetResponse } from '../src/check/target.ts';
import { PRODUCTION_THREAD_RULES } from '../src/query/threads/aggregate.ts';
import { parseThreadsQuery } from '../src/query/threads/request.ts';
import { queryThreads, threadLine } from '../src/query/threads/run.ts';
import { stringifyExact } from '../src/core/json/exact.ts';
import { parseRef } from '../src/core/refs.ts';
import { PRODUCTION_REF_RULES, readParsedRefs } from '../src/query/refs/read-batch.ts';
import { BUNDLE_PATH, type CaseBundle } from './bundle.ts';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as CaseBundle;

/** The in-process target, except that successful thread queries and ref reads are answered by production's rules. */
function productionThreadsTarget(): Target {
  const inner = createEngineTarget();
  return {
    ...inner,
    async send(req: CaseRequest): Promise<TargetResponse> {
      const res = await inner.send(req);
      if (req.path === '/refs/read_batch' && res.status === 200 && req.auth === undefined) {
        const refs = (req.body as { refs: string[] }).refs.map((r) => parseRef(r)!);
        const everyProject = { userId: 'u', authorize() {}, canRead: () => true };
        // Written and read back as a route answers it (values may hold LosslessNumbers).
        const text = stringifyExact({ vals: readParsedRefs(inner.engine.store, everyProject, refs, PRODUCTION_REF_RULES) });
        return { ...res, json: JSON.parse(text), raw: text };
      }
      if (req.path !== '/threads/stream_query' || res.status !== 200) return res;
      const body = req.body_text !== undefined ? JSON.parse(req.body_text) : req.body;
      const threads = queryThreads(inner.engine, parseThreadsQuery(body), PRODUCTION_THREAD_RULES);
      return { ...res, lines: threads.map((t) => JSON.parse(threadLine(t)) as unknown) };
    },
  };
}

test(`cases tagged '${DEVIATES_TAG}' are exactly those production's thread and ref-read rules answer differently`, async () => {
  const threadCases = bundle.cases.filter((c) => ['/threads/stream_query', '/refs/read_batch'].includes(c.request.path) || c.tags.includes(DEVIATES_TAG));
  const report = await runCases(threadCases, productionThreadsTarget());
  const differing = report.failed.map((f) => f.name).sort();
  const tagged = threadCases.filter((c) => c.tags.includes(DEVIATES_TAG)).map((c) => c.name).sort();
  assert.deepEqual(differing, tagged);
  assert.ok(tagged.length > 0);
});
