/**
 * OTLP JSON lines as fixtures (docs/otel.md): a fixtures directory may hold `otel-traces.jsonl`
 * (or `.jsonl.gz`), one OTLP/JSON trace export per line, as the OpenTelemetry Collector's file
 * exporter writes them. It is an entry of the fixture registry (load/fixture-kinds.ts) that
 * feeds the calls kind: each line goes through the same conversion as POST /otel/v1/traces
 * (planExport, prepareExport, storeExport), with no authenticated user (svc_user_id stays null) and the
 * project from each resource's wandb.entity / wandb.project. A line that is not such an
 * export, names no project, or holds a span production would reject, is a FixtureError
 * `file:line: problem`; nothing is skipped.
 */
import type { Engine } from '../api/types.ts';
import { planExport, prepareExport, storeExport } from './export.ts';
import { fromOtlpJson, OtlpFormatError } from './model.ts';

/**
 * Converts and stores one parsed OTLP/JSON export; returns the number of calls it held.
 * @throws OtlpFormatError for a value that is not an export, or the first span production would reject
 * @throws TqError from the conversion (no project named)
 */
export function storeOtlpExport(engine: Engine, value: unknown): number {
  const plan = planExport(fromOtlpJson(value), undefined);
  if (plan.rejectedSpans > 0) throw new OtlpFormatError('', plan.errors[0]);
  storeExport(engine, prepareExport(plan), null);
  return plan.calls.length;
}
