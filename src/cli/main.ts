/**
 * The `tq` command line: commander wiring only; each command lives in its own module.
 */
import { Command, CommanderError } from 'commander';
import { TQ_VERSION } from '../version.ts';
import { usePathWalkWasm } from '../core/json/path-walk.ts';
import { EXIT_OK, EXIT_USAGE, reportError, takeRequestedExit } from './common.ts';

/** bin/tq sizes the heap before it calls main (heap-size.ts). */
export { heapPlan, takeHeapFlag } from './heap-size.ts';

/**
 * Each command's module, imported only when that command is named (all of them for the
 * top-level help): a query does not pay for loading the server or the conformance tools.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  calls: async () => (await import('./queries.ts')).callsCommand(),
  table: async () => (await import('./queries.ts')).tableCommand(),
  threads: async () => (await import('./queries.ts')).threadsCommand(),
  serve: async () => (await import('./serve.ts')).serveCommand(),
  check: async () => (await import('./conformance.ts')).checkCommand(),
  fuzz: async () => (await import('./conformance.ts')).fuzzCommand(),
  load: async () => (await import('./load.ts')).loadCommand(),
  gen: async () => (await import('./gen.ts')).genCommand(),
  count: async () => (await import('./client-commands.ts')).countCommand(),
  objs: async () => (await import('./client-commands.ts')).objsCommand(),
  ls: async () => (await import('./ls.ts')).lsCommand(),
  dump: async () => (await import('./dump.ts')).dumpCommand(),
  journal: async () => (await import('./journal.ts')).journalCommand(),
  cache: async () => (await import('./cache.ts')).cacheCommand(),
};

async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('tq')
    .description('tq: the reference trace query service (Weave-exact calls, table and threads queries)')
    .showHelpAfterError()
    .exitOverride();
  // `tq check --version` is check's own (it adds the suite's version), so there the program's
  // flag must not take it first.
  if (argv[0] === 'check') program.version(TQ_VERSION, '-V');
  else program.version(TQ_VERSION, '-V, --version');
  const named = argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) ? [argv[0]] : Object.keys(COMMANDS);
  for (const name of named) program.addCommand((await COMMANDS[name]()).exitOverride());
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
  // The first use of a JSON path walks rows in WebAssembly; TQ_PATH_WALK=js keeps the JavaScript walk (to compare).
  if (process.env.TQ_PATH_WALK === 'js') usePathWalkWasm(false);
  try {
    await (await buildProgram(argv)).parseAsync(argv, { from: 'user' });
    return takeRequestedExit();
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    return reportError(e);
  }
}
