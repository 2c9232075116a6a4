/**
 * The journal record of `tq serve --data` (docs/semantics.md#durability): one JSON line per acknowledged write
 * request, holding what the engine needs to apply it again exactly:
 *
 *   {"v":1,"route":"/call/start","user":"alice","prefix":"svc_","body":"<request text>",
 *    "now":[1732400000000000],"ids":["0193…","0193…"],"can_read":[true]}
 *
 * `form` replaces `body` for multipart routes ({"fields":{…},"files":{name: base64}}), and
 * `binary` for raw-bytes routes ({"headers":{…},"bytes": base64}: OTLP protobuf). `now`
 * and `ids` are the values the engine drew from `options.now()` / `options.newId()` while it ran
 * the request, in draw order; `can_read` the answers of `ctx.canRead` and `params` the values
 * of a templated route path's `{name}` segments (each omitted when empty). `ack` is a digest of
 * the answer the client was sent: replay checks that it answers the same.
 * Recording the request rather than each store mutation keeps the journal generic: a new route
 * marked `mutates: true` is journaled and replayed with no code here.
 */
import type { FieldPrefix, RequestBody } from '../api/types.ts';
import * as zlib from 'node:zlib';
import { isPlainObject } from '../core/plain-object.ts';

export const JOURNAL_VERSION = 1;

/** Values of a route template's `{name}` path segments. */
export type RouteParams = Readonly<Record<string, string>>;

export interface JournalRecord {
  /** The route's path as declared (a template for parameterised routes). */
  route: string;
  params: RouteParams;
  user: string;
  prefix: FieldPrefix;
  body: RequestBody;
  now: number[];
  ids: string[];
  canRead: boolean[];
  /** First 16 hex digits of the SHA-256 of the JSON answer (absent on synthetic records). */
  ack?: string;
}

/** A record that cannot be read; the reader adds `file:line`. */
export class RecordFormatError extends Error {}

function bodyFields(body: RequestBody): Record<string, unknown> {
  if (body.kind === 'text') return { body: body.text };
  if (body.kind === 'value') return { body: JSON.stringify(body.value) };
  if (body.kind === 'binary') return { binary: { headers: body.headers, bytes: Buffer.from(body.bytes).toString('base64') } };
  const files: Record<string, string> = {};
  for (const [name, bytes] of body.files) files[name] = Buffer.from(bytes).toString('base64');
  return { form: { fields: Object.fromEntries(body.fields), files } };
}

/**
 * A record's checksum: CRC-32 of its text up to the `crc` field, written last as
 * `,"crc":"<8 hex>"}`. A changed byte then stops the start at its line instead of replaying as a
 * different write. Records written before checksums existed have none and are read as before.
 */
const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
/** zlib's own CRC-32, from Node 20.15 on (tq runs on 20.10 and later). */
const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * CRC-32 (IEEE, as zlib's) of the UTF-8 bytes of `text`. zlib's when Node has it: a 32 MiB
 * record cost seconds of the event loop in the byte loop below (an indexed loop: iterating a
 * Buffer with for…of is several times slower still).
 */
function crc32(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  return zlibCrc32 ? zlibCrc32(bytes) : tableCrc32(bytes);
}

/** CRC-32 by table, where zlib has none (exported for its test). */
export function tableCrc32(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
const crcHex = (text: string) => (crc32(text) >>> 0).toString(16).padStart(8, '0');
const CRC_TAIL = /,"crc":"([0-9a-f]{8})"\}$/;

/** One journal line, without its newline. */
export function encodeRecord(r: JournalRecord): string {
  const text = encodeUnchecked(r);
  return `${text.slice(0, -1)},"crc":"${crcHex(text.slice(0, -1))}"}`;
}

function encodeUnchecked(r: JournalRecord): string {
  return JSON.stringify({
    v: JOURNAL_VERSION,
    route: r.route,
    ...(Object.keys(r.params).length > 0 ? { params: r.params } : {}),
    user: r.user,
    prefix: r.prefix,
    ...bodyFields(r.body),
    now: r.now,
    ids: r.ids,
    ...(r.canRead.length > 0 ? { can_read: r.canRead } : {}),
    ...(r.ack !== undefined ? { ack: r.ack } : {}),
  });
}

type Obj = Record<string, unknown>;

function listOf<T>(rec: Obj, key: string, check: (v: unknown) => v is T, what: string, optional = false): T[] {
  const v = rec[key];
  if (v === undefined && optional) return [];
  if (!Array.isArray(v) || !v.every(check)) throw new RecordFormatError(`${key} must be a list of ${what}`);
  return v;
}

function stringMap(v: unknown, key: string): Map<string, string> {
  if (!isPlainObject(v) || !Object.values(v).every((x) => typeof x === 'string')) throw new RecordFormatError(`${key} must be an object of strings`);
  return new Map(Object.entries(v as Record<string, string>));
}

function decodeBody(rec: Obj): RequestBody {
  if (typeof rec.body === 'string' && rec.form === undefined && rec.binary === undefined) return { kind: 'text', text: rec.body };
  if (rec.body === undefined && rec.form === undefined && isPlainObject(rec.binary) && typeof rec.binary.bytes === 'string') {
    const headers = Object.fromEntries(stringMap(rec.binary.headers, 'binary.headers'));
    return { kind: 'binary', bytes: new Uint8Array(Buffer.from(rec.binary.bytes, 'base64')), headers };
  }
  if (rec.body === undefined && isPlainObject(rec.form)) {
    const fields = stringMap(rec.form.fields, 'form.fields');
    const files = new Map([...stringMap(rec.form.files, 'form.files')].map(([k, b64]) => [k, new Uint8Array(Buffer.from(b64, 'base64'))]));
    return { kind: 'multipart', fields, files };
  }
  throw new RecordFormatError('a record holds one of body (a string), form (an object) or binary (an object)');
}

function ackOf(v: unknown): string {
  if (typeof v !== 'string' || !/^[0-9a-f]{16}$/.test(v)) throw new RecordFormatError('ack must be 16 hex digits');
  return v;
}

const KEYS = new Set(['v', 'route', 'params', 'user', 'prefix', 'body', 'form', 'binary', 'now', 'ids', 'can_read', 'ack', 'crc']);

/** Parses and checks one journal line. */
export function decodeRecord(line: string): JournalRecord {
  const crc = CRC_TAIL.exec(line);
  if (crc !== null && crcHex(line.slice(0, crc.index)) !== crc[1]) throw new RecordFormatError(`checksum mismatch (crc ${crc[1]}, the text gives ${crcHex(line.slice(0, crc.index))}): the record was changed after it was written`);
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch (e) {
    throw new RecordFormatError(`invalid JSON: ${(e as Error).message}`);
  }
  if (!isPlainObject(rec)) throw new RecordFormatError('a journal record must be a JSON object');
  if (rec.v !== JOURNAL_VERSION) throw new RecordFormatError(`unsupported journal record version ${JSON.stringify(rec.v)} (this tq reads version ${JOURNAL_VERSION})`);
  for (const key of Object.keys(rec)) if (!KEYS.has(key)) throw new RecordFormatError(`unknown field ${key}`);
  if (typeof rec.route !== 'string') throw new RecordFormatError('route must be a string');
  if (typeof rec.user !== 'string') throw new RecordFormatError('user must be a string');
  if (rec.prefix !== 'svc_' && rec.prefix !== 'wb_') throw new RecordFormatError('prefix must be svc_ or wb_');
  return {
    route: rec.route,
    params: rec.params === undefined ? {} : Object.fromEntries(stringMap(rec.params, 'params')),
    user: rec.user,
    prefix: rec.prefix,
    body: decodeBody(rec),
    now: listOf(rec, 'now', (v): v is number => typeof v === 'number' && Number.isFinite(v), 'numbers'),
    ids: listOf(rec, 'ids', (v): v is string => typeof v === 'string', 'strings'),
    canRead: listOf(rec, 'can_read', (v): v is boolean => typeof v === 'boolean', 'booleans', true),
    ...(rec.ack !== undefined ? { ack: ackOf(rec.ack) } : {}),
  };
}
