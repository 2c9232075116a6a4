/**
 * One in-memory shape for an OTLP trace export, whichever way it arrived: decoded from
 * protobuf (the wire format production takes) or read from OTLP/JSON (the OpenTelemetry
 * Collector's file exporter, and tq's JSON extension of the endpoint). Both readers check every
 * field they use and name the offending path in an OtlpFormatError; nothing downstream sees an
 * unchecked value.
 */
import { MAX_BODY_DEPTH } from '../core/json/depth.ts';
import { ExportTraceServiceRequest } from './otlp-proto.ts';

/** An attribute value (common.proto AnyValue); `none` is an AnyValue with no member set. */
export type AnyValue =
  | { t: 'string'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'int'; v: bigint }
  | { t: 'double'; v: number }
  | { t: 'array'; v: AnyValue[] }
  | { t: 'kvlist'; v: KeyValue[] }
  | { t: 'bytes'; v: Uint8Array }
  | { t: 'none' };

export interface KeyValue {
  key: string;
  value: AnyValue;
}

interface SpanEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
}

interface SpanLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  flags: number;
}

export interface Span {
  /** Lower-case hex, as production's `hexlify` writes ids. */
  traceId: string;
  spanId: string;
  /** Null when the span has no parent (empty parent_span_id). */
  parentSpanId: string | null;
  traceState: string;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  events: SpanEvent[];
  droppedEventsCount: number;
  links: SpanLink[];
  droppedLinksCount: number;
  status: { code: number; message: string };
}

interface ResourceSpans {
  resource: { attributes: KeyValue[]; droppedAttributesCount: number };
  spans: Span[];
}

export interface TracesRequest {
  resourceSpans: ResourceSpans[];
}

/** A body or line that is not a valid OTLP trace export; `path` names where (e.g. resourceSpans[0].scopeSpans[1]). */
export class OtlpFormatError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path === '' ? problem : `${path}: ${problem}`);
  }
}

/** Attribute values may nest (arrays, kvlists) no deeper than a JSON request body may. */
const MAX_VALUE_DEPTH = MAX_BODY_DEPTH;

const HEX_ID = /^[0-9a-fA-F]*$/;

function hex(bytes: Uint8Array | null | undefined): string {
  // An absent bytes field decodes as protobufjs's shared empty default (a plain array).
  return bytes && bytes.length > 0 ? Buffer.from(bytes).toString('hex') : '';
}

// ---------------------------------------------------------------------------------------------
// protobuf

type Pb = Record<string, unknown> & { [k: string]: any };

function pbLong(v: unknown): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'number') return BigInt(v);
  const l = v as { low: number; high: number; unsigned: boolean };
  const value = (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
  return l.unsigned || value < 1n << 63n ? value : value - (1n << 64n);
}

function pbValue(v: Pb | null | undefined, path: string, depth: number): AnyValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpFormatError(path, `attribute value nested more than ${MAX_VALUE_DEPTH} levels deep`);
  if (!v) return { t: 'none' };
  // A decoded message names its set oneof member in the virtual `value` property.
  switch (v.value as string | undefined) {
    case 'stringValue':
      return { t: 'string', v: v.stringValue as string };
    case 'boolValue':
      return { t: 'bool', v: v.boolValue as boolean };
    case 'intValue':
      return { t: 'int', v: pbLong(v.intValue) };
    case 'doubleValue':
      return { t: 'double', v: v.doubleValue as number };
    case 'arrayValue':
      return { t: 'array', v: ((v.arrayValue?.values ?? []) as Pb[]).map((x, i) => pbValue(x, `${path}.arrayValue.values[${i}]`, depth + 1)) };
    case 'kvlistValue':
      return { t: 'kvlist', v: pbKeyValues(v.kvlistValue?.values, `${path}.kvlistValue.values`, depth + 1) };
    case 'bytesValue':
      return { t: 'bytes', v: v.bytesValue as Uint8Array };
    default:
      return { t: 'none' };
  }
}

function pbKeyValues(list: unknown, path: string, depth = 0): KeyValue[] {
  return ((list ?? []) as Pb[]).map((kv, i) => ({ key: kv.key as string, value: pbValue(kv.value, `${path}[${i}].value`, depth) }));
}

/**
 * Decodes an ExportTraceServiceRequest. @throws OtlpFormatError for bytes that are not one
 * (protobufjs's own message, e.g. "index out of range" or "invalid wire type", is kept).
 */
export function decodeProtobuf(bytes: Uint8Array): TracesRequest {
  let msg: Pb;
  try {
    msg = ExportTraceServiceRequest.decode(bytes) as unknown as Pb;
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new OtlpFormatError('', `protobuf nested too deeply`);
    throw new OtlpFormatError('', `not an OTLP ExportTraceServiceRequest (protobuf): ${(e as Error).message}`);
  }
  return {
    resourceSpans: ((msg.resourceSpans ?? []) as Pb[]).map((rs, r) => {
      const at = `resourceSpans[${r}]`;
      const spans: Span[] = [];
      ((rs.scopeSpans ?? []) as Pb[]).forEach((ss, s) => {
        ((ss.spans ?? []) as Pb[]).forEach((sp, k) => spans.push(pbSpan(sp, `${at}.scopeSpans[${s}].spans[${k}]`)));
      });
      return {
        resource: {
          attributes: pbKeyValues(rs.resource?.attributes, `${at}.resource.attributes`),
          droppedAttributesCount: (rs.resource?.droppedAttributesCount as number | undefined) ?? 0,
        },
        spans,
      };
    }),
  };
}

function pbSpan(sp: Pb, at: string): Span {
  const parent = hex(sp.parentSpanId);
  const status = sp.status as Pb | null | undefined;
  return {
    traceId: hex(sp.traceId),
    spanId: hex(sp.spanId),
    parentSpanId: parent === '' ? null : parent,
    traceState: (sp.traceState as string | undefined) ?? '',
    flags: (sp.flags as number | undefined) ?? 0,
    name: (sp.name as string | undefined) ?? '',
    kind: (sp.kind as number | undefined) ?? 0,
    startTimeUnixNano: pbLong(sp.startTimeUnixNano),
    endTimeUnixNano: pbLong(sp.endTimeUnixNano),
    attributes: pbKeyValues(sp.attributes, `${at}.attributes`),
    droppedAttributesCount: (sp.droppedAttributesCount as number | undefined) ?? 0,
    events: ((sp.events ?? []) as Pb[]).map((e, i) => ({
      timeUnixNano: pbLong(e.timeUnixNano),
      name: (e.name as string | undefined) ?? '',
      attributes: pbKeyValues(e.attributes, `${at}.events[${i}].attributes`),
      droppedAttributesCount: (e.droppedAttributesCount as number | undefined) ?? 0,
    })),
    droppedEventsCount: (sp.droppedEventsCount as number | undefined) ?? 0,
    links: ((sp.links ?? []) as Pb[]).map((l, i) => ({
      traceId: hex(l.traceId),
      spanId: hex(l.spanId),
      traceState: (l.traceState as string | undefined) ?? '',
      attributes: pbKeyValues(l.attributes, `${at}.links[${i}].attributes`),
      droppedAttributesCount: (l.droppedAttributesCount as number | undefined) ?? 0,
      flags: (l.flags as number | undefined) ?? 0,
    })),
    droppedLinksCount: (sp.droppedLinksCount as number | undefined) ?? 0,
    status: { code: (status?.code as number | undefined) ?? 0, message: (status?.message as string | undefined) ?? '' },
  };
}

// ---------------------------------------------------------------------------------------------
// OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): lowerCamelCase
// keys, ids as hex strings, 64-bit integers as decimal strings or numbers, enums as integers.
// Unknown keys are ignored, as the specification asks of receivers.

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jObject(v: unknown, path: string): Json {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new OtlpFormatError(path, 'must be an object');
  return v;
}

function jList(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpFormatError(path, 'must be a list');
  return v;
}

function jString(v: unknown, path: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new OtlpFormatError(path, 'must be a string');
  return v;
}

const INT_TEXT = /^-?\d+$/;
const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

function jInt(v: unknown, path: string, min: bigint, max: bigint): bigint {
  if (v === undefined || v === null) return 0n;
  let n: bigint;
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && INT_TEXT.test(v)) n = BigInt(v);
  else throw new OtlpFormatError(path, 'must be an integer (a number or a decimal string)');
  if (n < min || n > max) throw new OtlpFormatError(path, `out of range (${min} to ${max})`);
  return n;
}

const jU32 = (v: unknown, path: string) => Number(jInt(v, path, 0n, 0xffffffffn));
const jU64 = (v: unknown, path: string) => jInt(v, path, 0n, U64_MAX);

function jEnum(v: unknown, path: string, max: number): number {
  const n = jU32(v, path);
  if (n > max) throw new OtlpFormatError(path, `must be an integer from 0 to ${max}`);
  return n;
}

function jId(v: unknown, path: string, bytes: number): string {
  const s = jString(v, path);
  if (s !== '' && (s.length !== bytes * 2 || !HEX_ID.test(s))) throw new OtlpFormatError(path, `must be ${bytes * 2} hex digits`);
  return s.toLowerCase();
}

function jDouble(v: unknown, path: string): number {
  if (typeof v === 'number') return v;
  // The protobuf JSON mapping spells the special values as strings.
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  throw new OtlpFormatError(path, 'must be a number');
}

function jValue(raw: unknown, path: string, depth: number): AnyValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpFormatError(path, `attribute value nested more than ${MAX_VALUE_DEPTH} levels deep`);
  const v = jObject(raw, path);
  if ('stringValue' in v) return { t: 'string', v: jString(v.stringValue, `${path}.stringValue`) };
  if ('boolValue' in v) {
    if (typeof v.boolValue !== 'boolean') throw new OtlpFormatError(`${path}.boolValue`, 'must be true or false');
    return { t: 'bool', v: v.boolValue };
  }
  if ('intValue' in v) return { t: 'int', v: jInt(v.intValue, `${path}.intValue`, I64_MIN, I64_MAX) };
  if ('doubleValue' in v) return { t: 'double', v: jDouble(v.doubleValue, `${path}.doubleValue`) };
  if ('arrayValue' in v) {
    const values = jList(jObject(v.arrayValue, `${path}.arrayValue`).values, `${path}.arrayValue.values`);
    return { t: 'array', v: values.map((x, i) => jValue(x, `${path}.arrayValue.values[${i}]`, depth + 1)) };
  }
  if ('kvlistValue' in v) return { t: 'kvlist', v: jKeyValues(jObject(v.kvlistValue, `${path}.kvlistValue`).values, `${path}.kvlistValue.values`, depth + 1) };
  if ('bytesValue' in v) {
    const b64 = jString(v.bytesValue, `${path}.bytesValue`);
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw new OtlpFormatError(`${path}.bytesValue`, 'must be base64');
    return { t: 'bytes', v: new Uint8Array(Buffer.from(b64, 'base64')) };
  }
  return { t: 'none' };
}

function jKeyValues(raw: unknown, path: string, depth = 0): KeyValue[] {
  return jList(raw, path).map((kvRaw, i) => {
    const kv = jObject(kvRaw, `${path}[${i}]`);
    return { key: jString(kv.key, `${path}[${i}].key`), value: jValue(kv.value, `${path}[${i}].value`, depth) };
  });
}

function jSpan(raw: unknown, at: string): Span {
  const sp = jObject(raw, at);
  const parent = jId(sp.parentSpanId, `${at}.parentSpanId`, 8);
  const status = jObject(sp.status, `${at}.status`);
  return {
    traceId: jId(sp.traceId, `${at}.traceId`, 16),
    spanId: jId(sp.spanId, `${at}.spanId`, 8),
    parentSpanId: parent === '' ? null : parent,
    traceState: jString(sp.traceState, `${at}.traceState`),
    flags: jU32(sp.flags, `${at}.flags`),
    name: jString(sp.name, `${at}.name`),
    kind: jEnum(sp.kind, `${at}.kind`, 5),
    startTimeUnixNano: jU64(sp.startTimeUnixNano, `${at}.startTimeUnixNano`),
    endTimeUnixNano: jU64(sp.endTimeUnixNano, `${at}.endTimeUnixNano`),
    attributes: jKeyValues(sp.attributes, `${at}.attributes`),
    droppedAttributesCount: jU32(sp.droppedAttributesCount, `${at}.droppedAttributesCount`),
    events: jList(sp.events, `${at}.events`).map((eRaw, i) => {
      const e = jObject(eRaw, `${at}.events[${i}]`);
      return {
        timeUnixNano: jU64(e.timeUnixNano, `${at}.events[${i}].timeUnixNano`),
        name: jString(e.name, `${at}.events[${i}].name`),
        attributes: jKeyValues(e.attributes, `${at}.events[${i}].attributes`),
        droppedAttributesCount: jU32(e.droppedAttributesCount, `${at}.events[${i}].droppedAttributesCount`),
      };
    }),
    droppedEventsCount: jU32(sp.droppedEventsCount, `${at}.droppedEventsCount`),
    links: jList(sp.links, `${at}.links`).map((lRaw, i) => {
      const l = jObject(lRaw, `${at}.links[${i}]`);
      return {
        traceId: jId(l.traceId, `${at}.links[${i}].traceId`, 16),
        spanId: jId(l.spanId, `${at}.links[${i}].spanId`, 8),
        traceState: jString(l.traceState, `${at}.links[${i}].traceState`),
        attributes: jKeyValues(l.attributes, `${at}.links[${i}].attributes`),
        droppedAttributesCount: jU32(l.droppedAttributesCount, `${at}.links[${i}].droppedAttributesCount`),
        flags: jU32(l.flags, `${at}.links[${i}].flags`),
      };
    }),
    droppedLinksCount: jU32(sp.droppedLinksCount, `${at}.droppedLinksCount`),
    status: { code: jEnum(status.code, `${at}.status.code`, 2), message: jString(status.message, `${at}.status.message`) },
  };
}

/** Reads a parsed OTLP/JSON ExportTraceServiceRequest (or TracesData: the same shape). */
export function fromOtlpJson(value: unknown): TracesRequest {
  if (!isObject(value)) throw new OtlpFormatError('', 'an OTLP/JSON trace export must be a JSON object');
  return {
    resourceSpans: jList(value.resourceSpans, 'resourceSpans').map((rsRaw, r) => {
      const at = `resourceSpans[${r}]`;
      const rs = jObject(rsRaw, at);
      const resource = jObject(rs.resource, `${at}.resource`);
      const spans: Span[] = [];
      jList(rs.scopeSpans, `${at}.scopeSpans`).forEach((ssRaw, s) => {
        const ss = jObject(ssRaw, `${at}.scopeSpans[${s}]`);
        jList(ss.spans, `${at}.scopeSpans[${s}].spans`).forEach((sp, k) => spans.push(jSpan(sp, `${at}.scopeSpans[${s}].spans[${k}]`)));
      });
      return {
        resource: {
          attributes: jKeyValues(resource.attributes, `${at}.resource.attributes`),
          droppedAttributesCount: jU32(resource.droppedAttributesCount, `${at}.resource.droppedAttributesCount`),
        },
        spans,
      };
    }),
  };
}

/**
 * OTLP/JSON → protobuf bytes (ids hex → bytes), for clients that hold OTLP/JSON and must send
 * what production takes (the conformance runner's `otlp` requests, the benchmark).
 */
export function encodeOtlpJsonAsProtobuf(value: unknown): Uint8Array {
  fromOtlpJson(value); // validates, with paths, before protobufjs sees it
  const idsToBytes = (v: unknown, key?: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => idsToBytes(x));
    if (isObject(v)) {
      const out: Json = {};
      for (const [k, inner] of Object.entries(v)) out[k] = idsToBytes(inner, k);
      return out;
    }
    if (typeof v === 'string' && (key === 'traceId' || key === 'spanId' || key === 'parentSpanId')) return Buffer.from(v, 'hex');
    if (typeof v === 'string' && key === 'bytesValue') return Buffer.from(v, 'base64');
    return v;
  };
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(idsToBytes(value) as Json)).finish();
}
