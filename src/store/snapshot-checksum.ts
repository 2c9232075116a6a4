/**
 * CRC-32 (the zlib / PNG polynomial) of load snapshot regions. A snapshot guards against
 * accidental damage (a torn or edited file), not against someone who can write the cache
 * directory (they could write a matching digest of any kind), so a CRC is enough, and
 * zlib's is about 2.5× faster than SHA-256 here (134 MB: 36 ms against 88 ms). Node 20.10–20.14
 * lack zlib.crc32: a table-driven loop gives the same values there, only slower.
 */
import * as zlib from 'node:zlib';

let table: Int32Array | null = null;

function crcTable(): Int32Array {
  if (table !== null) return table;
  table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}

/** CRC-32 in plain JavaScript, continuing from `crc` (exported for the test that pins both). */
export function crc32Portable(bytes: Uint8Array, crc = 0): number {
  const t = crcTable();
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 of `bytes`, continuing from `crc` (0 to start): an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  // Nothing to add. (Node 20's zlib.crc32 answers 0 for an array over an empty ArrayBuffer,
  // whatever `crc` was: an empty column would reset the running value.)
  if (bytes.length === 0) return crc >>> 0;
  return native === undefined ? crc32Portable(bytes, crc) : native(bytes, crc);
}
