/**
 * Property-test input for the calls-line scanners (line-scan.test.ts for the JavaScript one,
 * io/load-calls/wasm-line-scan.test.ts for the WebAssembly one): JSON objects of call fields,
 * then an edit that may break them.
 */
import fc from 'fast-check';
import { CALL_LINE_FIELDS } from './line-scan.ts';

/**
 * The JSON text of an object of up to `maxEntries` members (call fields and a few others, each
 * with a `value`), into which a `jsonish` text may be written at some place, over up to three
 * of its characters.
 */
export function editedCallObject(value: fc.Arbitrary<unknown>, jsonish: fc.Arbitrary<string>, maxEntries: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom(...CALL_LINE_FIELDS, 'other', 'status_counts', 'error'), value), { maxLength: maxEntries }),
      fc.nat(),
      fc.option(jsonish, { nil: undefined }),
      fc.nat(3),
    )
    .map(([entries, at, insert, cut]) => {
      const text = '{' + entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',') + '}';
      if (insert === undefined) return text;
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(Math.min(text.length, i + cut));
    });
}
