/**
 * OTLP in conformance cases: a case's `otlp` request (OTLP/JSON) is sent as production takes it,
 * protobuf; a protobuf answer (ExportTraceServiceResponse) is compared as its JSON form.
 */
import { encodeOtlpJsonAsProtobuf } from '../otel/model.ts';
import { ExportTraceServiceResponse } from '../otel/otlp-proto.ts';

export const PROTOBUF_TYPE = 'application/x-protobuf';

export function otlpRequestBytes(otlp: unknown): Uint8Array {
  return encodeOtlpJsonAsProtobuf(otlp);
}

/** `{}` for full success, `{"partialSuccess": {"rejectedSpans": n, "errorMessage": "..."}}` otherwise. */
export function otlpResponseJson(bytes: Uint8Array): unknown {
  try {
    return ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bytes), { longs: Number });
  } catch (e) {
    return { not_an_otlp_response: (e as Error).message };
  }
}
