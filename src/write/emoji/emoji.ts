/**
 * Python's `emoji` package (the version in table.ts), as far as Weave's reaction feedback uses it
 * (semantics.md#feedback-reactions): `emoji_count`, `demojize` and the `detone_emojis` of Weave's
 * emoji_util. The data is the package's own, generated into table.ts by scripts/emoji-table.py;
 * the tokenizer reproduces the package's: at each code point the longest path through the
 * emoji trie is taken and is a match only if it ends on an emoji (no shorter fallback), a
 * stray variation selector is dropped, and a ZWJ after an emoji marks a non-RGI sequence: the
 * ZWJ is skipped (kept as text by `demojize`) and the scan restarts before that emoji, so each
 * member matches alone. Linear in the text (the skipped ZWJs are a set).
 */
import { EMOJI_TABLE } from './table.ts';

interface EmojiEntry {
  name: string;
  component: boolean;
  detoned: string;
}

interface TrieNode {
  next: Map<string, TrieNode>;
  entry?: EmojiEntry;
}

interface Token {
  chars: string;
  /** Length in code points (Python's len); only read for tokens of the scan. */
  length: number;
  entry?: EmojiEntry;
}

const ZWJ = '\u200d';

let loaded: { byEmoji: Map<string, EmojiEntry>; trie: TrieNode } | undefined;

/** The table, parsed on first use (a few milliseconds; most processes never see a reaction). */
function data(): { byEmoji: Map<string, EmojiEntry>; trie: TrieNode } {
  if (loaded) return loaded;
  const byEmoji = new Map<string, EmojiEntry>();
  const trie: TrieNode = { next: new Map() };
  for (const line of EMOJI_TABLE.split('\n')) {
    const [emoji, name, flag, detoned] = line.split('\t');
    const entry: EmojiEntry = { name, component: flag === 'c', detoned: detoned === '' ? emoji : detoned };
    byEmoji.set(emoji, entry);
    let node = trie;
    for (const cp of emoji) {
      let child = node.next.get(cp);
      if (!child) node.next.set(cp, (child = { next: new Map() }));
      node = child;
    }
    node.entry = entry;
  }
  return (loaded = { byEmoji, trie });
}

/** Whether some code point could start an emoji or a ZWJ sequence; without one, nothing matches. */
function mayHoldEmoji(text: string): boolean {
  const { trie } = data();
  for (const cp of text) if (cp === ZWJ || trie.next.has(cp)) return true;
  return false;
}

/** The package's `tokenize(text, keep_zwj)`: emoji matches and the other characters, in order. */
function tokenize(text: string, keepZwj: boolean): Token[] {
  const { byEmoji, trie } = data();
  // The common long text with no emoji at all: one token, variation selectors dropped.
  if (!mayHoldEmoji(text)) {
    const plain = text.replace(/[\ufe0e\ufe0f]/g, '');
    return plain === '' ? [] : [{ chars: plain, length: 0 }];
  }
  const cps = Array.from(text);
  const n = cps.length;
  const out: Token[] = [];
  let pending: Token[] = [];
  const skipped = new Set<number>();
  let i = 0;
  while (i < n) {
    const ch = cps[i];
    let consumed = false;
    if (skipped.has(i)) {
      i++;
      if (ch === ZWJ && keepZwj) pending.push({ chars: ch, length: 1 });
      continue;
    }
    const first = trie.next.get(ch);
    if (first) {
      let node = first;
      let j = i + 1;
      while (j < n && !skipped.has(j)) {
        const child = node.next.get(cps[j]);
        if (!child) break;
        node = child;
        j++;
      }
      if (node.entry) {
        pending.push({ chars: cps.slice(i, j).join(''), length: j - i, entry: node.entry });
        i = j - 1;
        consumed = true;
      }
    } else if (ch === ZWJ && pending.length > 0 && byEmoji.has(pending[pending.length - 1].chars) && i > 0 && trie.next.has(cps[i - 1])) {
      // A ZWJ right after an emoji: skip it and scan that emoji again (a component again with
      // the emoji before it, unless the ZWJ came first).
      skipped.add(i);
      const last = pending[pending.length - 1];
      if (byEmoji.get(last.chars)!.component) {
        i -= pending.slice(-2).reduce((sum, t) => sum + t.length, 0);
        if (cps[i] === ZWJ) {
          i++;
          pending.pop();
        } else {
          pending.splice(-2);
        }
      } else {
        i -= last.length;
        pending.pop();
      }
      continue;
    } else if (pending.length > 0) {
      for (const t of pending) out.push(t);
      pending = [];
    }
    if (!consumed && ch !== '\ufe0e' && ch !== '\ufe0f') pending.push({ chars: ch, length: 1 });
    i++;
  }
  for (const t of pending) out.push(t);
  return out;
}

/** `emoji.emoji_count(text)`. */
export function emojiCount(text: string): number {
  let n = 0;
  for (const t of tokenize(text, false)) if (t.entry) n++;
  return n;
}

/** `emoji.demojize(text)`: each emoji replaced by its `:name:`. */
export function demojize(text: string): string {
  return tokenize(text, true)
    .map((t) => (t.entry ? t.entry.name : t.chars))
    .join('');
}

/** Weave's `detone_emojis(text)`: each emoji replaced by its form without skin tones. */
export function detoneEmojis(text: string): string {
  return tokenize(text, false)
    .map((t) => (t.entry ? t.entry.detoned : t.chars))
    .join('');
}
