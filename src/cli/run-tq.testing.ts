/**
 * Test support: runs bin/tq in a child process, as a user would, in an empty working
 * directory (so the bundled demo data loads), without colour, without a TTY unless asked.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TQ_BIN = fileURLToPath(new URL('../../bin/tq', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'tq-run-'));

export interface TqRun {
  code: number | null;
  out: string;
  err: string;
  /** stdout parsed as JSON Lines. */
  lines: Array<Record<string, unknown>>;
}

export function runTq(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): TqRun {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TQ_FIXTURES: '', ...opts.env };
  if (!opts.env?.TQ_FORCE_TTY) delete env.TQ_FORCE_TTY;
  const r = spawnSync(process.execPath, [TQ_BIN, ...args], { cwd, input: opts.input, encoding: 'utf8', env, timeout: 60_000 });
  return {
    code: r.status,
    out: r.stdout,
    err: r.stderr,
    get lines() {
      return r.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

/**
 * Runs the CLI's `main` in this process with stdout/stderr captured: for commands that end
 * before loading data (usage errors), where a child process would only add start-up time.
 */
export async function runMainCaptured(args: string[], env: Record<string, string> = {}): Promise<TqRun & { code: number }> {
  const { main } = await import('./main.ts');
  let out = '', err = '';
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const stdoutWrite = process.stdout.write, stderrWrite = process.stderr.write;
  // The CLI writes strings; the test runner reports through stdout in binary frames, which pass.
  const capture = (stream: NodeJS.WriteStream, original: typeof stdoutWrite, append: (text: string) => void) =>
    ((chunk: string | Uint8Array, ...rest: never[]) => (typeof chunk === 'string' ? (append(chunk), true) : original.call(stream, chunk, ...rest))) as typeof stdoutWrite;
  process.stdout.write = capture(process.stdout, stdoutWrite, (t) => (out += t));
  process.stderr.write = capture(process.stderr, stderrWrite, (t) => (err += t));
  try {
    const code = await main(args);
    return {
      code,
      out,
      err,
      get lines() {
        return out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
      },
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}
