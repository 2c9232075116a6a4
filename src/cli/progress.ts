/**
 * Load progress for a person watching: once a load has taken longer than a second, one
 * self-overwriting stderr line per progress report (file, MB, percent, records, MB/s), ended
 * by a newline when the load finishes. Nothing at all when stderr is not a terminal.
 */
import type { LoadProgress } from '../io/load-fixtures.ts';
import { stderrIsTerminal } from './tty.ts';

export interface ProgressOptions {
  /** Show anything at all (default: stderr is a terminal). */
  enabled?: boolean;
  /** Quiet period before the first line (default 1000 ms, or $TQ_PROGRESS_AFTER_MS: fast loads stay silent). */
  afterMs?: number;
  write?: (text: string) => void;
  now?: () => number;
}

export function progressReporter(opts: ProgressOptions = {}): ((p: LoadProgress) => void) | undefined {
  if (!(opts.enabled ?? stderrIsTerminal())) return undefined;
  const write = opts.write ?? ((text: string) => process.stderr.write(text));
  const now = opts.now ?? Date.now;
  const afterMs = opts.afterMs ?? Number(process.env.TQ_PROGRESS_AFTER_MS || 1000);
  const started = now();
  return (p) => {
    const elapsedMs = now() - started;
    if (elapsedMs < afterMs) return;
    const mb = p.bytesRead / 1e6;
    const pct = p.totalBytes ? ` ${((100 * p.bytesRead) / p.totalBytes).toFixed(0)}%` : '';
    const rate = elapsedMs > 0 ? `, ${(mb / (elapsedMs / 1000)).toFixed(1)} MB/s` : '';
    write(`\rloading ${p.file}: ${mb.toFixed(1)} MB${pct}, ${p.records} records${rate}   `);
    if (p.bytesRead >= p.totalBytes) write('\n');
  };
}
