/**
 * Test support: the path of bin/tq (for tests that need a real process: a terminal, a pipe,
 * signals) and an in-process run of the CLI for everything else.
 */
import { fileURLToPath } from 'node:url';

export const TQ_BIN = fileURLToPath(new URL('../../bin/tq', import.meta.url));

export interface TqRun {
  code: number;
  out: string;
  err: string;
  /** stdout parsed as JSON Lines. */
  lines: Array<Record<string, unknown>>;
}

/**
 * Runs the CLI's `main` in this process with stdout/stderr captured, `env` set for the run:
 * for everything that needs no terminal, pipe or signal (a child process adds start-up time).
 */
export async function runMainCaptured(args: string[], env: Record<string, string> = {}): Promise<TqRun> {
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
