import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import { decodeRecord, encodeRecord, JOURNAL_VERSION, RecordFormatError, tableCrc32, type JournalRecord } from './record.ts';

const base: JournalRecord = { route: '/call/start', params: {}, user: 'alice', prefix: 'svc_', body: { kind: 'text', text: '{"start":{}}\n' }, now: [1.5e15], ids: ['a', 'b'], canRead: [] };

function problem(line: string): string {
  try {
    decodeRecord(line);
  } catch (e) {
    assert.ok(e instanceof RecordFormatError);
    return e.message;
  }
  assert.fail('expected a RecordFormatError');
}

describe('journal records', () => {
  it('are one JSON line, versioned, holding the body text as sent', () => {
    const line = encodeRecord(base);
    assert.equal(line, `{"v":${JOURNAL_VERSION},"route":"/call/start","user":"alice","prefix":"svc_","body":"{\\"start\\":{}}\\n","now":[1500000000000000],"ids":["a","b"],"crc":"9841d22a"}`);
    assert.ok(!line.includes('\n'));
    assert.deepEqual(decodeRecord(line), base);
  });

  it('keep path parameters, grant answers and multipart parts (files as base64)', () => {
    const rec: JournalRecord = {
      ...base,
      route: '/v2/{entity}/{project}/call/start',
      params: { entity: 'acme', project: 'one' },
      prefix: 'wb_',
      canRead: [true, false],
      ack: '0123456789abcdef',
      body: { kind: 'multipart', fields: new Map([['project_id', 'acme/one']]), files: new Map([['file', new Uint8Array([0, 255, 10])]]) },
    };
    const line = encodeRecord(rec);
    assert.match(line, /"form":\{"fields":\{"project_id":"acme\/one"\},"files":\{"file":"AP8K"\}\}/);
    assert.match(line, /"params":\{"entity":"acme","project":"one"\}/);
    assert.match(line, /"can_read":\[true,false\]/);
    assert.deepEqual(decodeRecord(line), rec);
  });

  it('keep a raw-bytes body (OTLP protobuf) as base64 with the headers it was sent with', () => {
    const rec: JournalRecord = {
      ...base,
      route: '/otel/v1/traces',
      body: { kind: 'binary', bytes: new Uint8Array([0, 255, 10]), headers: { 'content-type': 'application/x-protobuf', project_id: 'a/b' } },
    };
    const line = encodeRecord(rec);
    assert.match(line, /"binary":\{"headers":\{"content-type":"application\/x-protobuf","project_id":"a\/b"\},"bytes":"AP8K"\}/);
    assert.deepEqual(decodeRecord(line), rec);
    // Without its checksum (as an older record): a changed record with one would fail the CRC first.
    const { crc: _crc, ...unchecked } = JSON.parse(line) as Record<string, unknown>;
    assert.equal(problem(JSON.stringify({ ...unchecked, binary: { headers: { a: 1 }, bytes: '' } })), 'binary.headers must be an object of strings');
  });

  it('store a parsed body as its JSON text', () => {
    const line = encodeRecord({ ...base, body: { kind: 'value', value: { a: 1 } } });
    assert.deepEqual(decodeRecord(line).body, { kind: 'text', text: '{"a":1}' });
  });

  it('that do not fit the format say what is wrong', () => {
    assert.match(problem('{"v":1,'), /^invalid JSON: /);
    assert.equal(problem('[1]'), 'a journal record must be a JSON object');
    assert.equal(problem('{"v":2}'), 'unsupported journal record version 2 (this tq reads version 1)');
    assert.equal(problem('{"route":"/x"}'), 'unsupported journal record version undefined (this tq reads version 1)');
    // Without its checksum (a record written before checksums), so each field's own check shows.
    const { crc: _crc, ...ok } = JSON.parse(encodeRecord(base)) as Record<string, unknown>;
    const without = (key: string, extra: Record<string, unknown> = {}) => {
      const copy = { ...ok, ...extra };
      delete copy[key];
      return JSON.stringify(copy);
    };
    assert.equal(problem(JSON.stringify({ ...ok, extra: 1 })), 'unknown field extra');
    assert.equal(problem(without('route')), 'route must be a string');
    assert.equal(problem(without('user')), 'user must be a string');
    assert.equal(problem(JSON.stringify({ ...ok, prefix: 'x_' })), 'prefix must be svc_ or wb_');
    assert.equal(problem(without('body')), 'a record holds one of body (a string), form (an object) or binary (an object)');
    assert.equal(problem(JSON.stringify({ ...ok, form: { fields: {}, files: {} } })), 'a record holds one of body (a string), form (an object) or binary (an object)');
    assert.equal(problem(without('body', { form: { fields: { a: 1 }, files: {} } })), 'form.fields must be an object of strings');
    assert.equal(problem(JSON.stringify({ ...ok, now: ['x'] })), 'now must be a list of numbers');
    assert.equal(problem(without('ids')), 'ids must be a list of strings');
    assert.equal(problem(JSON.stringify({ ...ok, can_read: [1] })), 'can_read must be a list of booleans');
    assert.equal(problem(JSON.stringify({ ...ok, params: { a: 1 } })), 'params must be an object of strings');
    assert.equal(problem(JSON.stringify({ ...ok, ack: 'xyz' })), 'ack must be 16 hex digits');
  });

  it('carry a CRC-32: one changed byte is named, never replayed as a different write (issue 22 §5)', () => {
    const line = encodeRecord(base);
    assert.equal(problem(line.replace('"alice"', '"alicf"')), 'checksum mismatch (crc 9841d22a, the text gives 84c3b7a9): the record was changed after it was written');
  });
});

describe('record checksums', () => {
  it('the table CRC-32 (Node before 20.15) is zlib’s, so a journal reads the same on either', (t) => {
    const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
    if (!zlibCrc32) return t.skip('this Node has no zlib.crc32');
    for (const text of ['', 'a', '{"v":1,"route":"/call/start"}', 'é€😀\u0000\n'.repeat(1000)]) {
      const bytes = Buffer.from(text, 'utf8');
      assert.equal(tableCrc32(bytes), zlibCrc32(bytes), text.slice(0, 20));
    }
    // The check value of CRC-32/IEEE.
    assert.equal(tableCrc32(Buffer.from('123456789')), 0xcbf43926);
  });
});
