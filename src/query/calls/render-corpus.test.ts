/**
 * The byte renderer (rowWriter) against the former text renderer (response-text.testing.ts)
 * over the whole conformance corpus: every /calls/stream_query request the corpus sends, in
 * the store state the corpus built for it, must give the same bytes both ways (lines joined
 * with `\n`, each ended by one), under both field prefixes. The request is rendered twice more
 * after the case's own render: the third render copies the lines the second kept
 * (CallTable.renderedLines) wherever the request's shape keeps them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantingContext } from '../../api/call-route.testing.ts';
import { runRoute } from '../../api/run-route.ts';
import type { FieldPrefix } from '../../api/types.ts';
import { TqError } from '../../core/errors.ts';
import type { CaseRequest } from '../../check/case.ts';
import { loadCases } from '../../check/corpus.ts';
import { createEngineTarget } from '../../check/engine-target.ts';
import { runCases } from '../../check/runner.ts';
import type { Target } from '../../check/target.ts';
import { createEngine } from '../../engine.ts';
import { textCallsQueryLines } from './response-text.testing.ts';
import { callsStreamQueryRoute } from './route.ts';

const decoder = new TextDecoder();

for (const fieldPrefix of ['svc_', 'wb_'] as FieldPrefix[]) {
  test(`corpus (${fieldPrefix}): the byte renderer writes the text renderer's lines, byte for byte`, async () => {
    const inner = createEngineTarget({ engine: createEngine(undefined, { fieldPrefix }) });
    const engine = inner.engine;
    let compared = 0, lines = 0;
    const mismatches: string[] = [];
    const target: Target = {
      ...inner,
      async send(req: CaseRequest) {
        // Every table keeps its rendered lines (its own budget would keep none at this size).
        for (const project of engine.store.projects.values()) project.calls.renderedLinesBudget = 1024 * 1024;
        const response = await inner.send(req);
        if (req.path === '/calls/stream_query' && response.status === 200 && req.multipart === undefined) {
          const text = req.body_text ?? JSON.stringify(req.body ?? {});
          const ctx = grantingContext();
          let expected: string;
          try {
            const oracle = textCallsQueryLines(engine, text, (p) => ctx.canRead(p));
            expected = oracle.map((l) => `${l}\n`).join('');
            lines += oracle.length;
          } catch (e) {
            // Rejected for every user alike (the case's own user may have been refused first).
            if (e instanceof TqError) return response;
            throw e;
          }
          // The second render keeps the lines (where the shape keeps them), the third copies them.
          for (let i = 0; i < 2; i++) {
            const result = runRoute(callsStreamQueryRoute, engine, { kind: 'text', text }, ctx);
            const actual = result.kind === 'stream' ? [...result.chunks].map((c) => decoder.decode(c)).join('') : `not a stream: ${result.kind}`;
            compared++;
            if (actual !== expected) mismatches.push(`${text}\n  bytes: ${actual}\n  text:  ${expected}`);
          }
        }
        return response;
      },
    };
    const report = await runCases(loadCases(), target);
    assert.deepEqual(mismatches, []);
    assert.deepEqual(report.failed, []);
    assert.ok(compared > 100 && lines > 200, `${compared} requests, ${lines} lines compared`);
  });
}
