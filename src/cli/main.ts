/**
 * The `tq` command line: commander wiring only; each command lives in its own module.
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { callsCommand, tableCommand, threadsCommand } from './queries.ts';
import { loadCommand } from './load.ts';
import { genCommand } from './gen.ts';
import { serveCommand } from './serve.ts';
import { dumpCommand } from './dump.ts';
import { checkCommand, fuzzCommand } from './conformance.ts';
import { countCommand, objsCommand } from './client-commands.ts';
import { EXIT_OK, EXIT_USAGE, reportError, takeRequestedExit } from './common.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('tq')
    .description('tq: the reference trace query service (Weave-exact calls, table and threads queries)')
    .version(pkg.version, '-V, --version')
    .showHelpAfterError()
    .exitOverride();
  for (const cmd of [callsCommand(), tableCommand(), threadsCommand(), serveCommand(), checkCommand(), fuzzCommand(), loadCommand(), genCommand(), countCommand(), objsCommand(), dumpCommand()]) {
    program.addCommand(cmd.exitOverride());
  }
  return program;
}

/** A reader that went away (`tq ... | head`) ends the command quietly, as Unix tools do. */
let pipeGuardInstalled = false;
function exitQuietlyOnClosedPipe(): void {
  if (pipeGuardInstalled) return;
  pipeGuardInstalled = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(EXIT_OK);
      throw e;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return takeRequestedExit();
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    return reportError(e);
  }
}
