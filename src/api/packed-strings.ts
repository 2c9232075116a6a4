/**
 * Many strings as one string and their end offsets: what a route prepared off the event loop
 * (src/server/off-loop.ts) hands back for its rows. A worker's answer is copied by structured
 * clone on the main thread; one long string and one typed array copy in a few milliseconds,
 * where 30,000 separate strings cost a few hundred (measured: 32 MiB of table rows).
 */
export interface PackedStrings {
  text: string;
  ends: Uint32Array;
}

export function packStrings(strings: readonly string[]): PackedStrings {
  const ends = new Uint32Array(strings.length);
  let at = 0;
  for (let i = 0; i < strings.length; i++) {
    at += strings[i].length;
    ends[i] = at;
  }
  return { text: strings.join(''), ends };
}

/** The strings back, in order (slices of `text`: no copy of their characters). */
export function unpackStrings(packed: PackedStrings): string[] {
  const out = new Array<string>(packed.ends.length);
  let from = 0;
  for (let i = 0; i < packed.ends.length; i++) {
    out[i] = packed.text.slice(from, packed.ends[i]);
    from = packed.ends[i];
  }
  return out;
}
