/**
 * The operational family's guard, as errors.test.ts guards the request catalogue: each code has
 * one class that raises it (with typed arguments), the class is used in tq's sources, the CLI
 * reports it with the entry's label and exit status, and every other Error class of src/ is
 * either one of the two families or an internal error named below with where it is converted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FixtureError, OPERATIONAL_ERRORS, OperationalError, type OperationalCode } from './operational-errors.ts';
import { UsageError, reportError } from '../cli/common.ts';
import { JournalError } from '../journal/read.ts';
import { LockHeldError } from '../journal/lock.ts';
import { SnapshotError } from '../journal/snapshot.ts';
import { SnapshotDamagedError } from '../store/snapshot.ts';
import { CredentialsError } from '../server/credentials.ts';
import { UsersFileError } from '../server/users-file.ts';

/** Each code's class, built as its raisers build it, and the message that makes. */
const RAISED: Record<OperationalCode, { make: () => OperationalError; cls: string; message: string }> = {
  TQ_USAGE: { make: () => new UsageError('give --data or --fixtures, not both'), cls: 'UsageError', message: 'give --data or --fixtures, not both' },
  TQ_FIXTURE_FILE: { make: () => new FixtureError('calls.jsonl', 3, 'invalid JSON'), cls: 'FixtureError', message: 'calls.jsonl:3: invalid JSON' },
  TQ_JOURNAL_FILE: { make: () => new JournalError('journal/0001.jsonl', 0, 'torn'), cls: 'JournalError', message: 'journal/0001.jsonl: torn' },
  TQ_DATA_DIR_LOCKED: { make: () => new LockHeldError('d is in use'), cls: 'LockHeldError', message: 'd is in use' },
  TQ_DUMP: { make: () => new SnapshotError('cannot hold it'), cls: 'SnapshotError', message: 'cannot hold it' },
  TQ_SNAPSHOT_DAMAGED: { make: () => new SnapshotDamagedError('damaged'), cls: 'SnapshotDamagedError', message: 'damaged' },
  TQ_CREDENTIALS: { make: () => new CredentialsError('TQ_PASSWORD must not be empty'), cls: 'CredentialsError', message: 'TQ_PASSWORD must not be empty' },
  TQ_USERS_FILE: { make: () => new UsersFileError('users.json', 'users[0]', 'no name'), cls: 'UsersFileError', message: 'users.json: users[0]: no name' },
};

/** Error classes that never leave the module pair that throws and catches them, and what catches them. */
const INTERNAL: Record<string, string> = {
  ClientGoneError: 'server/body-reader.ts: the server stops reading a request whose client left',
  MultipartError: 'server/server.ts: a 422 for the form',
  RecordFormatError: 'journal/read.ts: a JournalError at the line',
  ReplayError: 'journal/read.ts (it runs the replay): a JournalError at the line',
  OtlpFormatError: 'otel/export.ts: a 400; load/fixture-kinds.ts: a RecordProblem',
  RejectedSpan: 'otel/export.ts: the span is counted as rejected',
  AttributePathConflict: 'otel/convert.ts: a RejectedSpan',
  MissingKey: 'otel/values.ts: a missing attribute',
  RecordProblem: 'io/load-fixtures.ts: a FixtureError at the line',
  SnapshotFormatError: 'io/snapshot/file.ts: the snapshot is ignored with a notice',
  NotImageable: 'io/snapshot/kind-image.ts: the image is not written (its reason is in the load report)',
  DuplicateCallError: 'io/load-fixtures.ts and load/fixture-kinds.ts: a FixtureError at the line',
  OneShotGateGaveUp: 'cli/one-shot.ts: the one-shot loads the file whole instead',
  JsonSyntaxError: 'api/body.ts: the 422 json_invalid; load/records.ts and cli/request-body.ts: their own messages',
  OffLoopUnavailable: 'server/off-loop.ts → server/server.ts: the route runs on the event loop instead',
  PreparedRefusal: 'server/off-loop.ts → server/server.ts: the status and JSON text the worker rendered are sent',
  FeedbackRefused: 'write/feedback.ts → write/prepared-feedback.ts and createFeedback: a 400 (TQ_INVALID_REQUEST), once the projects are authorized',
};

const SRC = fileURLToPath(new URL('..', import.meta.url));
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$|\.testing\.ts$/.test(name) ? [path] : [];
  });
}

test('each operational code is raised by its class with typed arguments, making the entry\'s message', () => {
  for (const [code, { make, cls, message }] of Object.entries(RAISED)) {
    const e = make();
    assert.ok(e instanceof OperationalError, code);
    assert.equal(e.code, code);
    assert.equal(e.constructor.name, cls);
    assert.equal(e.message, message);
  }
  assert.deepEqual(new OperationalError('TQ_FIXTURE_FILE', { file: 'f', line: 2, problem: 'p' }).args, { file: 'f', line: 2, problem: 'p' });
});

test('the CLI reports each code with its label and exit status', () => {
  const write = process.stderr.write;
  for (const [code, { make, message }] of Object.entries(RAISED)) {
    let said = '';
    process.stderr.write = ((chunk: string) => ((said += chunk), true)) as typeof process.stderr.write;
    let exit: number;
    try {
      exit = reportError(make());
    } finally {
      process.stderr.write = write;
    }
    const { label, exit: kind } = OPERATIONAL_ERRORS[code as OperationalCode];
    assert.equal(said.replace(/\x1b\[[0-9;]*m/g, ''), `${label}: ${message}\n`, code);
    assert.equal(exit, kind === 'usage' ? 2 : 1, code);
  }
});

test('every Error class of src/ is a request error, an operational error, or a named internal one; each operational class is used', () => {
  const texts = sources(SRC).map((f) => readFileSync(f, 'utf8'));
  const direct = texts.flatMap((t) => [...t.matchAll(/class (\w+)(?:<[^>]*>)? extends Error\b/g)].map((m) => m[1])).sort();
  assert.deepEqual(direct, ['OperationalError', 'TqError', ...Object.keys(INTERNAL)].sort());
  const all = texts.join('\n');
  for (const { cls } of Object.values(RAISED)) {
    const uses = all.match(new RegExp(`new ${cls}\\(`, 'g'))?.length ?? 0;
    assert.ok(uses > 0, `${cls} is never raised`);
  }
});
