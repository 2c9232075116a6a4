/**
 * Lossless JSON: a parser and writer that keep what `JSON.parse` throws away (number lexemes,
 * key order, Python's NaN/Infinity), so tq can compute Weave's digests and echo numbers as
 * they were written. One import for the rest of tq; the parts live beside it:
 *  - value.ts: LosslessNumber, LosslessObject, LosslessValue;
 *  - parse.ts: parseLossless (CPython's `json.loads`), JsonSyntaxError;
 *  - convert.ts: toPlain / fromPlain / defineOwn (to and from ordinary JS values);
 *  - write.ts: writeJson (any style) and dumpCompact (minified JSON).
 */
export { LosslessNumber, LosslessObject, type LosslessValue } from './value.ts';
export { JsonSyntaxError, parseLossless } from './parse.ts';
export { defineOwn, fromPlain, toPlain } from './convert.ts';
export { dumpCompact, writeJson, type JsonWriterStyle } from './write.ts';
