/**
 * Running a write so that it can be journaled, and running a journal record again. Both go
 * through the route itself (`runRoute`), so the journal needs no code per route: recording
 * wraps the engine's clock, id generator and `ctx.canRead` to remember every value the route
 * drew; replay feeds the same values back, in the same order, with the recorded user and
 * field prefix. Write routes validate and authorize before they change the store, so a request
 * that fails changes nothing and is not journaled (tested in apply.test.ts).
 */
import { createHash } from 'node:crypto';
import { findRoute } from '../routes.ts';
import { runPreparedRoute, runRoute } from '../api/run-route.ts';
import type { Engine, PreparedRequest, RequestBody, RequestContext, Route, RouteResult } from '../api/types.ts';
import type { JournalRecord, RouteParams } from './record.ts';

/**
 * Runs a mutating route and returns its result with the record that reproduces it. `prepared`:
 * the first half of a split route, already run on `body` (off the event loop); the record is
 * the same (replay runs both halves from the body).
 */
export function runRecorded(route: Route, engine: Engine, body: RequestBody, ctx: RequestContext, params: RouteParams = {}, prepared?: PreparedRequest): { result: RouteResult; record: JournalRecord } {
  const now: number[] = [];
  const ids: string[] = [];
  const canRead: boolean[] = [];
  const { options } = engine;
  const recording: Engine = {
    store: engine.store,
    options: {
      fieldPrefix: options.fieldPrefix,
      now: () => {
        const v = options.now();
        now.push(v);
        return v;
      },
      newId: () => {
        const v = options.newId();
        ids.push(v);
        return v;
      },
    },
  };
  const recordingCtx: RequestContext = {
    userId: ctx.userId,
    authorize: (projectId) => ctx.authorize(projectId),
    assertLegacyCallWrite: ctx.assertLegacyCallWrite,
    canRead: (projectId) => {
      const v = ctx.canRead(projectId);
      canRead.push(v);
      return v;
    },
  };
  const result = prepared ? runPreparedRoute(route, recording, prepared, recordingCtx, params) : runRoute(route, recording, body, recordingCtx, params);
  const ack = ackDigest(result);
  return { result, record: { route: route.path, params, user: ctx.userId, prefix: options.fieldPrefix, body, now, ids, canRead, ...(ack !== undefined ? { ack } : {}) } };
}

/** A short digest of a JSON answer, so replay can check it answers what was acknowledged. */
function ackDigest(result: RouteResult): string | undefined {
  if (result.kind !== 'json') return undefined;
  return createHash('sha256').update(result.text ?? JSON.stringify(result.body)).digest('hex').slice(0, 16);
}

/** A record that does not replay as it ran (a bug or a hand-edited journal). */
export class ReplayError extends Error {}

function feeder<T>(values: readonly T[], what: string): { next: () => T; left: () => number } {
  let i = 0;
  return {
    next: () => {
      if (i >= values.length) throw new ReplayError(`the write drew more ${what} than the ${values.length} recorded`);
      return values[i++];
    },
    left: () => values.length - i,
  };
}

/** Applies a journal record to `engine.store` exactly as it was applied when recorded. */
export function replayRecord(engine: Engine, record: JournalRecord): void {
  const route = findRoute(record.route);
  if (!route || route.mutates !== true) throw new ReplayError(`${record.route} is not a write route of this tq`);
  const now = feeder(record.now, 'timestamps');
  const ids = feeder(record.ids, 'ids');
  const canRead = feeder(record.canRead, 'grant checks');
  const replaying: Engine = { store: engine.store, options: { fieldPrefix: record.prefix, now: now.next, newId: ids.next } };
  // Authorization passed when the write was acknowledged; grants are not re-checked.
  const ctx: RequestContext = { userId: record.user, authorize() {}, canRead: () => canRead.next() };
  let result: RouteResult;
  try {
    result = runRoute(route, replaying, record.body, ctx, record.params);
  } catch (e) {
    if (e instanceof ReplayError) throw e;
    throw new ReplayError(`${record.route} failed on replay: ${(e as Error).message}`);
  }
  const unused = now.left() + ids.left() + canRead.left();
  if (unused > 0) throw new ReplayError(`${record.route} drew ${unused} fewer recorded values on replay than when it ran`);
  const ack = ackDigest(result);
  if (record.ack !== undefined && ack !== record.ack) throw new ReplayError(`${record.route} answered differently on replay than when it was acknowledged (ack ${ack} instead of ${record.ack})`);
}
