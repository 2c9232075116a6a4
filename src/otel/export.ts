/**
 * One OTLP trace export, from request bytes to stored calls (semantics.md#otel-endpoint):
 * content type and encoding are checked, the body is inflated within a bound, decoded, every
 * resource's project is resolved and authorized, and every span converted, all before the
 * first call is written; a rejected span (production's partial success) is reported, never
 * half-stored. The HTTP route and the OTLP fixture loader both come here.
 *
 * In two halves (issue 22 §4): everything up to `prepareExport` reads the body alone (no store,
 * no clock, no id, not even who asks), so the route runs it off the event loop for a large
 * body; `storeExport` reads the store for the op objects and writes, in one step.
 */
import { gunzipSync, inflateSync } from 'node:zlib';
import type { Engine } from '../api/types.ts';
import { tqError } from '../core/errors.ts';
import { prepareCallWrites, storeCallWrites, type CallWrite, type PreparedCallWrites } from '../write/prepared-calls.ts';
import { spanToCall, RejectedSpan, type ConvertedCall } from './convert.ts';
import { decodeProtobuf, fromOtlpJson, OtlpFormatError, type TracesRequest } from './model.ts';
import { ExportTraceServiceResponse } from './otlp-proto.ts';
import { opNamesOf, storeOpObjects, type OpNamePlan } from './op-objects.ts';
import { AttributePathConflict, getAttribute, unflattenKeyValues } from './values.ts';

/** The most a compressed body may inflate to: tq serve's default body limit. */
export const MAX_INFLATED_BYTES = 32 * 1024 * 1024;

const PROTOBUF_TYPE = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

export type OtlpFormat = 'protobuf' | 'json';

/** The media type without parameters, lower-cased. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Which decoder a Content-Type asks for (415 for any other). */
export function formatOf(contentType: string | undefined): OtlpFormat {
  const type = mediaType(contentType);
  if (type === PROTOBUF_TYPE || type === 'application/protobuf') return 'protobuf';
  if (type === JSON_TYPE) return 'json';
  throw tqError('TQ_OTLP_CONTENT_TYPE', { type: type === '' ? '(none)' : type.slice(0, 100) });
}

/**
 * The body inflated per Content-Encoding, never beyond `maxBytes` (a gzip bomb is a 413 after
 * at most that much output, not an out-of-memory).
 */
export function inflateBody(bytes: Uint8Array, contentEncoding: string | undefined, maxBytes: number): Uint8Array {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return bytes;
  if (encoding !== 'gzip' && encoding !== 'deflate' && encoding !== 'x-gzip') {
    throw tqError('TQ_OTLP_CONTENT_ENCODING', { encoding: encoding.slice(0, 100) });
  }
  try {
    return encoding === 'deflate' ? inflateSync(bytes, { maxOutputLength: maxBytes }) : gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw tqError('TQ_OTLP_DECOMPRESSED_TOO_LARGE', { max: maxBytes });
    throw tqError('TQ_OTLP_BAD_COMPRESSION', { encoding, cause: (e as Error).message });
  }
}

/** Decodes the (inflated) body. @throws TqError TQ_OTLP_INVALID naming the offending path. */
export function decodeBody(bytes: Uint8Array, format: OtlpFormat): TracesRequest {
  try {
    if (format === 'protobuf') return decodeProtobuf(bytes);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (e) {
      throw new OtlpFormatError('', `not JSON: ${(e as Error).message}`);
    }
    return fromOtlpJson(value);
  } catch (e) {
    if (e instanceof OtlpFormatError) throw tqError('TQ_OTLP_INVALID', { reason: e.message });
    throw e;
  }
}

/** What an export will write, and what it refuses (production's partial success). */
export interface ExportPlan {
  calls: ConvertedCall[];
  /** Every project written to, in first-seen order (each must be authorized). */
  projects: string[];
  rejectedSpans: number;
  errors: string[];
}

/**
 * The project of one resource: `wandb.entity`/`wandb.project` resource attributes, else the
 * `project_id` header; a resource with spans and neither is a 400.
 */
function projectOf(request: TracesRequest, index: number, headerProject: string | undefined): string | null {
  const rs = request.resourceSpans[index];
  let attributes;
  try {
    attributes = unflattenKeyValues(rs.resource.attributes, `resourceSpans[${index}].resource.attributes`);
  } catch (e) {
    if (e instanceof AttributePathConflict) throw tqError('TQ_OTLP_INVALID', { reason: `resourceSpans[${index}].resource.attributes: ${e.message}` });
    throw e;
  }
  const entity = getAttribute(attributes, 'wandb.entity');
  const project = getAttribute(attributes, 'wandb.project');
  if (typeof entity === 'string' && entity !== '' && typeof project === 'string' && project !== '') return `${entity}/${project}`;
  if (headerProject !== undefined && headerProject !== '') return headerProject;
  if (rs.spans.length === 0) return null;
  throw tqError('TQ_OTLP_NO_PROJECT', { index });
}

/**
 * Converts every span (no writes). The calls carry no user: the store step gives them the
 * authenticated one (none for fixtures). @throws TqError for what fails the whole export.
 */
export function planExport(request: TracesRequest, headerProject: string | undefined): ExportPlan {
  const plan: ExportPlan = { calls: [], projects: [], rejectedSpans: 0, errors: [] };
  // Each project once, in first-seen order, without a search of the list per resource.
  const seen = new Set<string>();
  request.resourceSpans.forEach((rs, r) => {
    const projectId = projectOf(request, r, headerProject);
    if (projectId === null) return;
    if (!seen.has(projectId)) {
      seen.add(projectId);
      plan.projects.push(projectId);
    }
    rs.spans.forEach((span, s) => {
      try {
        plan.calls.push(spanToCall(span, projectId, null, `resourceSpans[${r}].spans[${s}]`));
      } catch (e) {
        if (e instanceof RejectedSpan) {
          plan.rejectedSpans++;
          plan.errors.push(e.message);
        } else if (e instanceof OtlpFormatError) throw tqError('TQ_OTLP_INVALID', { reason: e.message });
        else throw e;
      }
    });
  });
  return plan;
}

/**
 * What the store step needs of a plan, from the plan alone (store-free, structured-clone safe):
 * the op names per project, and the calls (start, then end, per span) as prepared-calls.ts
 * hands them over (one JSON text and one packed string: a loop reads them back fast), each
 * start's op_name the safe op name its ref is made of.
 */
export interface PreparedExport {
  ops: OpNamePlan;
  calls: PreparedCallWrites;
}

export function prepareExport(plan: ExportPlan): PreparedExport {
  const { plan: ops, callNames } = opNamesOf(plan.calls);
  const writes: CallWrite[] = new Array(2 * plan.calls.length);
  for (let i = 0; i < plan.calls.length; i++) {
    const { start, end } = plan.calls[i];
    writes[2 * i] = { start: { ...start, op_name: callNames[i] } };
    writes[2 * i + 1] = { end };
  }
  return { ops, calls: prepareCallWrites(writes) };
}

/**
 * Stores a prepared export: first the op objects its op names refer to (op-objects.ts, which
 * refuses a name that cannot be a ref before anything is written), then start and end per span
 * in order (an upsert, as production's insert), each start's op_name its op's ref; a start
 * without a user gets `userId` (null: fixtures).
 */
export function storeExport(engine: Engine, prepared: PreparedExport, userId: string | null): void {
  const refs = storeOpObjects(engine, prepared.ops, userId);
  storeCallWrites(engine, prepared.calls, userId as string, (projectId, name) => refs.get(projectId)!.get(name)!);
}

/** Production joins at most 20 rejection messages (`build_otel_export_response`). */
const MAX_ERROR_MESSAGES = 20;

function errorMessageOf(errors: readonly string[]): string {
  return errors.slice(0, MAX_ERROR_MESSAGES).join('; ') + (errors.length > MAX_ERROR_MESSAGES ? '; ...' : '');
}

/** The answer: production's OTelExportRes as JSON, or ExportTraceServiceResponse as protobuf. */
export function exportResponse(plan: ExportPlan, format: OtlpFormat): { json: unknown } | { bytes: Uint8Array } {
  const partial = plan.rejectedSpans > 0 ? { rejected_spans: plan.rejectedSpans, error_message: errorMessageOf(plan.errors) } : null;
  if (format === 'json') return { json: { partial_success: partial } };
  const message = partial === null ? {} : { partialSuccess: { rejectedSpans: partial.rejected_spans, errorMessage: partial.error_message } };
  return { bytes: ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(message)).finish() };
}
