/**
 * OTLP JSON lines as fixtures (docs/otel.md): a fixtures directory may hold `otel-traces.jsonl`
 * (or `.jsonl.gz`), one OTLP/JSON trace export per line, as the OpenTelemetry Collector's file
 * exporter writes them. Each line goes through the same conversion as POST /otel/v1/traces
 * (planExport, applyExport), with no authenticated user (svc_user_id stays null) and the
 * project from each resource's wandb.entity / wandb.project. A line that is not such an
 * export, names no project, or holds a span production would reject, is a FixtureError
 * `file:line: problem`; nothing is skipped.
 */
import { basename, join } from 'node:path';
import { existsSync } from 'node:fs';
import type { Engine } from '../api/types.ts';
import { FixtureError, TqError } from '../core/errors.ts';
import { forEachLine, forEachLineOf, type LineRef } from '../io/lines.ts';
import { invalidUtf8Offset } from '../io/utf8.ts';
import { applyExport, planExport } from './export.ts';
import { fromOtlpJson, OtlpFormatError } from './model.ts';

/** The fixture kind, and the file name a fixtures directory holds it under. */
export const OTEL_TRACES_KIND = 'otel-traces' as const;
const OTEL_TRACES_FILE = 'otel-traces.jsonl';

/** Whether a path names an OTLP traces fixture file (`otel-traces.jsonl[.gz]`). */
export function isOtelTracesFile(path: string): boolean {
  return /^otel-traces\.jsonl(\.gz)?$/.test(basename(path));
}

/** The OTLP traces file of a directory, if any; both plain and gzip at once is an error. */
export function otelTracesFileIn(dir: string): string | null {
  const plain = join(dir, OTEL_TRACES_FILE);
  const gz = `${plain}.gz`;
  if (existsSync(plain) && existsSync(gz)) throw new FixtureError(dir, 0, `both ${OTEL_TRACES_FILE} and ${OTEL_TRACES_FILE}.gz exist; keep one`);
  return existsSync(plain) ? plain : existsSync(gz) ? gz : null;
}

/** Converts and stores one line; returns the number of calls it held. */
function loadLine(engine: Engine, file: string, { buf, start, end, line }: LineRef): number {
  const bad = invalidUtf8Offset(buf, start, end);
  if (bad >= 0) throw new FixtureError(file, line, `invalid UTF-8 at byte offset ${bad}`);
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8', start, end));
  } catch (e) {
    throw new FixtureError(file, line, `invalid JSON: ${(e as Error).message}`);
  }
  try {
    const plan = planExport(fromOtlpJson(value), undefined, null);
    if (plan.rejectedSpans > 0) throw new FixtureError(file, line, plan.errors[0]);
    applyExport(engine, plan, null);
    return plan.calls.length;
  } catch (e) {
    if (e instanceof OtlpFormatError || (e instanceof TqError && !(e instanceof FixtureError))) throw new FixtureError(file, line, e.message);
    throw e;
  }
}

/** Loads an OTLP traces file (plain or gzip); returns the number of calls stored. */
export async function loadOtelTracesFile(engine: Engine, file: string): Promise<number> {
  let calls = 0;
  let lastLine = 0;
  await forEachLine(file, (ref) => {
    lastLine = ref.line;
    calls += loadLine(engine, file, ref);
  }).catch((e: unknown) => {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw new FixtureError(file, 0, `gzip data is truncated/corrupt (after ${lastLine} lines)`);
    throw e;
  });
  return calls;
}

/** The same for OTLP JSON lines that are not a file (`name` stands for the file in errors). */
export async function loadOtelTracesText(engine: Engine, source: Parameters<typeof forEachLineOf>[0], name = `<${OTEL_TRACES_KIND}>`): Promise<number> {
  let calls = 0;
  await forEachLineOf(source, (ref) => {
    calls += loadLine(engine, name, ref);
  });
  return calls;
}
