import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemberSpans, pathSteps } from '../core/json/path-extract.ts';
import { pathWalkWasmAvailable, RowMemberWalk, setPathWalkHelper, SPLIT_MIN_ROWS, type PathWalkJob } from '../core/json/path-walk.ts';
import { postPathWalkJob } from './path-walk-helper.ts';

test('the helper worker walks the blocks it claims, in shared memory, to the spans MemberSpans gives here', { timeout: 120_000 }, async () => {
  assert.ok(pathWalkWasmAvailable());
  const encoder = new TextEncoder();
  // Bodies with the keys at varied places, escaped keys (walked by MemberSpans in the worker),
  // repeated keys (the last wins), rows without the part, non-ASCII bytes.
  const bodies = ['{"model":"gpt-4o","max_tokens":300}', '{"max_tokens":12,"x":[1,{"model":2}],"model":"é"}', '{"\\u006dodel":"escaped","max_tokens":1}', '{"model":1,"model":2}', '{}', null, '{"a":"}]\\"","model":{"deep":[1,2,3]}}'];
  const rows = SPLIT_MIN_ROWS + 5000;
  const at: number[] = [];
  let length = 0;
  for (let r = 0; r < rows; r++) {
    at.push(length + 3);
    length += 3 + (bodies[r % bodies.length]?.length ?? 0) * 2;
  }
  const shared = new SharedArrayBuffer(length + 8);
  const arena = new Uint8Array(shared).fill(0x7b);
  const ends: number[] = [];
  for (let r = 0; r < rows; r++) {
    const body = bodies[r % bodies.length];
    const bytes = body === null ? new Uint8Array(0) : encoder.encode(body);
    arena.set(bytes, at[r]);
    ends.push(at[r] + bytes.length);
  }
  const partOf = (row: number, span: Int32Array): Uint8Array | null => {
    if (bodies[row % bodies.length] === null) return null;
    span[0] = at[row];
    span[1] = ends[row];
    return arena;
  };
  const keys = ['model', 'max_tokens'].map((k) => pathSteps([k], () => false)![0]);
  let job: PathWalkJob | null = null;
  setPathWalkHelper((j) => {
    job = j;
    postPathWalkJob(j);
  });
  try {
    const walk = new RowMemberWalk(partOf, () => rows, () => shared);
    keys.forEach((k) => walk.add(k));
    const reference = new MemberSpans();
    keys.forEach((k) => reference.add(k));
    const check = (row: number) => {
      const bytes = walk.walk(row);
      if (bodies[row % bodies.length] === null) return assert.equal(bytes, null);
      reference.walk(arena, at[row], ends[row]);
      for (let k = 0; k < keys.length; k++) {
        assert.equal(walk.members.start[k], reference.start[k], `row ${row} key ${k} start`);
        if (reference.start[k] >= 0) assert.equal(walk.members.end[k], reference.end[k], `row ${row} key ${k} end`);
      }
    };
    let row = 0;
    for (; job === null && row < rows; row++) check(row);
    assert.ok(job !== null, 'the walk was split');
    // Let the worker start and walk (it claims blocks from the last one down).
    const state = (job as PathWalkJob).state;
    for (let waited = 0; waited < 60_000 && state.every((s) => s !== 3); waited += 20) await sleep(20);
    assert.ok(state.some((s) => s === 3), 'the worker walked blocks');
    for (; row < rows; row++) check(row);
  } finally {
    setPathWalkHelper(null);
  }
});
