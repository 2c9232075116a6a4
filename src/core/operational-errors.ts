/**
 * Operational errors: what goes wrong around the engine rather than in a request (a command
 * line, a fixture or journal file, the data directory's lock, a dump, a load snapshot, the
 * server's credentials). They never reach an HTTP client; the CLI reports each by its code,
 * with the label and exit status the code's entry gives. Request errors, with their HTTP
 * statuses, are the other catalogue (errors.ts). Each code's message takes typed arguments.
 * operational-errors.test.ts checks that every Error class of src/ is in one of the two
 * families or a named internal one, and that every code is raised somewhere.
 */

interface OperationalEntry<A> {
  /** What the CLI prints before the message (`fixture error: ...`). */
  label: string;
  /** `usage`: the command was wrong (exit 2); `runtime`: the data or the machine (exit 1). */
  exit: 'usage' | 'runtime';
  message: (args: A) => string;
}

/** A problem at a line of a file, or of the whole file (line 0): `file:line: problem`, `file: problem`. */
export interface FileProblem {
  file: string;
  line: number;
  problem: string;
}

const atLine = ({ file, line, problem }: FileProblem) => (line > 0 ? `${file}:${line}: ${problem}` : `${file}: ${problem}`);
const reason = ({ reason }: { reason: string }) => reason;

/** The family. Codes are stable: tests and scripts may rely on them. */
export const OPERATIONAL_ERRORS = {
  // A wrong command line or environment setting.
  TQ_USAGE: { label: 'error', exit: 'usage', message: reason },
  // A fixture file that cannot be loaded; nothing is skipped.
  TQ_FIXTURE_FILE: { label: 'fixture error', exit: 'runtime', message: atLine },
  // A journal line of a --data directory that cannot be read or replayed.
  TQ_JOURNAL_FILE: { label: 'journal error', exit: 'runtime', message: atLine },
  // A --data directory another tq holds.
  TQ_DATA_DIR_LOCKED: { label: 'journal error', exit: 'runtime', message: reason },
  // A store `tq dump` (or compaction) cannot write as fixture files that load back the same.
  TQ_DUMP: { label: 'journal error', exit: 'runtime', message: reason },
  // A load snapshot found damaged after it was restored.
  TQ_SNAPSHOT_DAMAGED: { label: 'error', exit: 'runtime', message: reason },
  // `tq serve`'s credentials: a wrong flag or TQ_USER/TQ_PASSWORD.
  TQ_CREDENTIALS: { label: 'error', exit: 'usage', message: reason },
  // A --users file that is not a list of users with grants.
  TQ_USERS_FILE: {
    label: 'error',
    exit: 'usage',
    message: ({ source, where, problem }: { source: string; where: string; problem: string }) => `${source}: ${where ? `${where}: ` : ''}${problem}`,
  },
} satisfies Record<string, OperationalEntry<never>>;

export type OperationalCode = keyof typeof OPERATIONAL_ERRORS;
export type OperationalArgs<C extends OperationalCode> = Parameters<(typeof OPERATIONAL_ERRORS)[C]['message']>[0];

/** An operational error: its code, the typed arguments, and the message they make. */
export class OperationalError<C extends OperationalCode = OperationalCode> extends Error {
  constructor(
    readonly code: C,
    readonly args: OperationalArgs<C>,
  ) {
    super((OPERATIONAL_ERRORS[code].message as (a: OperationalArgs<C>) => string)(args));
  }
}

/** A malformed fixture (or journal) file: names the file and line. */
export class FixtureError extends OperationalError<'TQ_FIXTURE_FILE' | 'TQ_JOURNAL_FILE'> {
  readonly file: string;
  readonly line: number;
  readonly problem: string;
  constructor(file: string, line: number, problem: string, code: 'TQ_FIXTURE_FILE' | 'TQ_JOURNAL_FILE' = 'TQ_FIXTURE_FILE') {
    // Line 0: a problem of the whole file (missing, unreadable, corrupt gzip), named `file: problem`.
    super(code, { file, line, problem });
    this.file = file;
    this.line = line;
    this.problem = problem;
    this.name = 'FixtureError';
  }
}
