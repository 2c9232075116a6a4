/**
 * Test support for the OTel ingest: OTLP/JSON exports built from a few spans, and the same as
 * protobuf bytes.
 */
import { encodeOtlpJsonAsProtobuf } from './model.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

type Attr = string | number | boolean;
const kv = (key: string, v: Attr) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v },
});

export interface SpanSpec {
  id: string;
  name?: string;
  parent?: string;
  attrs?: Record<string, Attr>;
  start?: string;
  end?: string;
  status?: { code: number; message?: string };
}

function otlpSpan(s: SpanSpec) {
  return {
    traceId: TRACE,
    spanId: s.id,
    ...(s.parent ? { parentSpanId: s.parent } : {}),
    name: s.name ?? `op-${s.id.slice(-2)}`,
    kind: 1,
    startTimeUnixNano: s.start ?? '1714564800000000000',
    endTimeUnixNano: s.end ?? '1714564801000000000',
    attributes: Object.entries(s.attrs ?? { 'input.value': 'x' }).map(([k, v]) => kv(k, v)),
    ...(s.status ? { status: s.status } : {}),
  };
}

/** One ResourceSpans per entry: `[resource attributes, spans]`. */
export function otlpExport(...resources: Array<[Record<string, Attr>, SpanSpec[]]>) {
  return {
    resourceSpans: resources.map(([attrs, spans]) => ({
      resource: { attributes: Object.entries(attrs).map(([k, v]) => kv(k, v)) },
      scopeSpans: [{ scope: { name: 'test' }, spans: spans.map(otlpSpan) }],
    })),
  };
}

export const protobufOf = (otlp: unknown): Uint8Array => encodeOtlpJsonAsProtobuf(otlp);
