/**
 * How the query commands print their JSON Lines for a person: on a terminal each line is
 * pretty-printed with colour, as jq does (`--compact` keeps one line each; never when piped),
 * and `--format table` prints chosen fields as an aligned table. The pretty printer works on
 * the line's text, token by token, so every lexeme (`1.0`, `1e400`, escapes) is printed as the
 * engine wrote it; nothing is parsed into JavaScript values and back.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import { alignColumns, columnWidths } from './ls.ts';

/** Whether stdout is a terminal. `TQ_FORCE_STDOUT_TTY=1` says yes without one (tests, recorded demos). */
export function stdoutIsTerminal(env: NodeJS.ProcessEnv = process.env, stream: { isTTY?: boolean } = process.stdout): boolean {
  return stream.isTTY === true || env.TQ_FORCE_STDOUT_TTY === '1';
}

export function stdoutPaint(env: NodeJS.ProcessEnv = process.env): ChalkInstance {
  return new Chalk({ level: stdoutIsTerminal(env) && !env.NO_COLOR ? 1 : 0 });
}

/** One JSON text, indented by two spaces per level, keys blue, strings green, literals dim, as jq colours them. */
export function prettyJson(text: string, paint: ChalkInstance): string {
  let out = '';
  let depth = 0;
  const newline = () => '\n' + '  '.repeat(depth);
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const token = text.slice(i, j + 1);
      // A key is a string followed by a colon.
      let k = j + 1;
      while (text[k] === ' ') k++;
      out += text[k] === ':' ? paint.blue.bold(token) : paint.green(token);
      i = j + 1;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      let k = i + 1;
      while (text[k] === ' ') k++;
      if (text[k] === close) {
        out += c + close; // {} and [] stay on one line
        i = k + 1;
        continue;
      }
      depth++;
      out += c + newline();
      i++;
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
      i++;
    } else if (c === ',') {
      out += ',' + newline();
      i++;
    } else if (c === ':') {
      out += ': ';
      i++;
    } else if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
    } else {
      let j = i;
      while (j < text.length && !',]} \n:'.includes(text[j])) j++;
      const token = text.slice(i, j);
      out += token === 'null' || token === 'true' || token === 'false' ? paint.dim(token) : token;
      i = j;
    }
  }
  return out;
}

/** Columns a `--format table` shows when `--table-columns` names none. */
export const DEFAULT_TABLE_COLUMNS: Record<string, string[]> = {
  calls: ['id', 'op_name', 'started_at', 'summary.weave.status', 'summary.weave.latency_ms'],
  threads: ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms'],
  table: ['digest', 'val'],
};

/** Rows buffered to size the columns; later rows use those widths (a stream may be huge). */
const TABLE_BLOCK = 500;
const MAX_CELL = 60;

function cellOf(line: Record<string, unknown>, path: string, column: string): string | number {
  let v: unknown = line;
  for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  // An op ref reads best as its name: weave:///e/p/op/chat_turn:digest → chat_turn.
  if (column === 'op_name' && typeof v === 'string') {
    const m = /\/op\/([^:]+):/.exec(v);
    if (m) v = m[1];
  }
  if (typeof v === 'number') return v;
  const text = v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

/** The table's text lines for JSON lines, header first; widths from the first block of rows. */
export function* tableLines(lines: Iterable<string>, columns: readonly string[]): Generator<string> {
  const header = [...columns];
  let block: Array<Array<string | number>> = [];
  let widths: number[] | undefined;
  let numeric: boolean[] | undefined;
  const render = (row: Array<string | number>) =>
    row.map((cell, i) => (numeric![i] ? String(cell).padStart(widths![i]) : String(cell).padEnd(widths![i]))).join('  ').trimEnd();
  for (const line of lines) {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    const row = columns.map((c) => cellOf(parsed, c, c));
    if (widths !== undefined) {
      yield render(row);
      continue;
    }
    block.push(row);
    if (block.length === TABLE_BLOCK) {
      const aligned = alignColumns([header, ...block]);
      yield* aligned;
      widths = columnWidths([header, ...block]);
      numeric = header.map((_, i) => typeof block[block.length - 1][i] === 'number');
      block = [];
    }
  }
  if (widths === undefined) yield* block.length ? alignColumns([header, ...block]) : ['(no rows)'];
}
