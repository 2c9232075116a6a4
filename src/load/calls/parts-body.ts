/**
 * The last step of the fast calls load: a scanned line stored as a call row whose body keeps
 * only the line's four JSON parts, `{"attributes":…,"inputs":…,"output":…,"summary":…}` (the
 * parts present, their bytes as they are), which is all the body readers look at: the line's
 * other fields live in the table's columns. On a typical call that is about half the line.
 */
import { bytesEqual, CLOSE_OBJ, COLON, COMMA, isJsonSpace, OPEN_OBJ, QUOTE } from '../../core/json/bytes.ts';
import { PART_KEY_BYTES } from '../../store/call-bodies.ts';
import { DuplicateCallError, type CallRecordPart, type CallTable, type DerivedColumns } from '../../store/call-table.ts';

/** The stored body's part spans, filled per line (one load runs at a time per thread). */
const bodySpans = new Int32Array(8);

/**
 * Stores `record` with its body made of `line`'s parts. When the line holds the parts in
 * BODY_PARTS order, the body is the line's run of members from the first part's key to the
 * last part's value, in braces: one copy, and the few fields between the parts (a line's
 * `exception`, say) ride along unread, as they do in a body stored whole (CallTable.load).
 * `spans` are the parts' (start, end) byte offsets in `line` in BODY_PARTS order, -1 for an
 * absent part, as a scan that validated the line found them (trimmed values, a repeated key's
 * last occurrence: the scan refuses repeated or escaped top-level keys, so each part's key is
 * spelled plainly once); the new body's spans go to the table with it. `derived` gives what
 * the row's columns take from the JSON parts, found by the same scan without building them.
 * DuplicateCallError for a stored id, and the table is left as it was. `idHashA`/`idHashB`: the
 * id's IdHash when the thread that scanned the line made it ((0, 0): hashed here); the table's
 * own checks and its add then reuse it. `storedRelations`: as CallTable.loadWritten takes them.
 */
export function storeCallParts(table: CallTable, record: CallRecordPart, line: Uint8Array, spans: ArrayLike<number>, derived?: DerivedColumns, idHashA = 0, idHashB = 0, storedRelations = 0): number {
  if (table.rowOfHashed(record.id, idHashA, idHashB) >= 0) throw new DuplicateCallError(record.id); // before the arena makes room
  const run = memberRun(line, spans);
  let body: Uint8Array, offset: number, at: number;
  if (run >= 0) {
    // {<the line's bytes from the first part's key to the last part's value>}
    let last = 3;
    while (spans[2 * last] < 0) last--;
    const runEnd = spans[2 * last + 1];
    body = table.bodyRoom(runEnd - run + 2);
    offset = table.bodyRoomStart;
    body[offset] = OPEN_OBJ;
    body.set(line.subarray(run, runEnd), offset + 1);
    at = offset + 1 + runEnd - run;
    body[at++] = CLOSE_OBJ;
    for (let k = 0; k < 8; k++) bodySpans[k] = spans[k] < 0 ? -1 : spans[k] - run + 1;
  } else {
    // {"key":value,"key":value}: braces, and per part its key in quotes, a colon and a comma
    // (one comma too many counted when any part is present: the room is only an upper bound).
    let length = 2;
    for (let k = 0; k < 4; k++) if (spans[2 * k] >= 0) length += PART_KEY_BYTES[k].length + 4 + spans[2 * k + 1] - spans[2 * k];
    body = table.bodyRoom(length);
    offset = table.bodyRoomStart;
    at = offset;
    body[at++] = OPEN_OBJ;
    for (let k = 0; k < 4; k++) {
      const start = spans[2 * k];
      if (start < 0) {
        bodySpans[2 * k] = bodySpans[2 * k + 1] = -1;
        continue;
      }
      if (at > offset + 1) body[at++] = COMMA;
      body[at++] = QUOTE;
      const key = PART_KEY_BYTES[k];
      for (let j = 0; j < key.length; j++) body[at++] = key[j];
      body[at++] = QUOTE;
      body[at++] = COLON;
      bodySpans[2 * k] = at - offset;
      const end = spans[2 * k + 1];
      body.set(line.subarray(start, end), at);
      at += end - start;
      bodySpans[2 * k + 1] = at - offset;
    }
    body[at++] = CLOSE_OBJ;
  }
  // Written straight into the table's arena; kept only once the row is in.
  return table.loadWritten(record, at - offset, bodySpans, derived, storedRelations);
}

/**
 * Where the run of members holding a line's parts starts (the opening quote of the first part's
 * key) when the parts present appear in BODY_PARTS order; -1 when they do not (or none is).
 * `spans` as storeCallParts takes them: the key before each value is spelled plainly.
 */
function memberRun(line: Uint8Array, spans: ArrayLike<number>): number {
  let first = -1, previousEnd = -1;
  for (let k = 0; k < 4; k++) {
    const start = spans[2 * k];
    if (start < 0) continue;
    if (start < previousEnd) return -1;
    previousEnd = spans[2 * k + 1];
    if (first < 0) first = k;
  }
  if (first < 0) return -1;
  // Back from the value over `"key"` ws `:` ws.
  let j = spans[2 * first] - 1;
  while (j >= 0 && isJsonSpace(line[j])) j--;
  if (j < 0 || line[j] !== COLON) return -1;
  j--;
  while (j >= 0 && isJsonSpace(line[j])) j--;
  const key = PART_KEY_BYTES[first];
  const quote = j - key.length - 1;
  if (quote < 0 || line[j] !== QUOTE || line[quote] !== QUOTE) return -1;
  return bytesEqual(line, quote + 1, key) ? quote : -1;
}
