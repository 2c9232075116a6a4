/**
 * Test support for the real-SDK end-to-end tests: `tq serve` as a child process, and a client
 * script (CommonJS, run by node with the repository's node_modules) as another.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Starts `tq serve --port 0 ARGS` and resolves with its base URL once it prints the listening line. */
export function startServer(args: readonly string[]): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/tq'), 'serve', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    proc.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /tq listening on (https?:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc });
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

/**
 * Runs `spec-tests/sdk/SCRIPT` in `home` with only PATH, HOME, NODE_PATH and `env` set (no
 * variable of this process reaches the SDK); killed after 60 s. Resolves with its exit code
 * and its stdout and stderr together.
 */
export function runClient(script: string, home: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, [join(ROOT, 'spec-tests/sdk', script)], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home, NODE_PATH: join(ROOT, 'node_modules'), ...env },
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
