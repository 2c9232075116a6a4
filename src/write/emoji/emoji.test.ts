import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { demojize, detoneEmojis, emojiCount } from './emoji.ts';

interface Sample {
  text: string;
  count: number;
  alias: string;
  detoned: string;
  detoned_alias: string;
}

const { package: pkg, samples } = JSON.parse(readFileSync(new URL('./python-samples.json', import.meta.url), 'utf8')) as { package: string; samples: Sample[] };

test(`semantics.md#feedback-reactions the port answers as Python's ${pkg} on every recorded sample`, () => {
  assert.ok(samples.length > 1000, 'skin tones, ZWJ sequences, flags, keycaps, components and mixed text');
  const wrong = samples.filter((s) => {
    const detoned = detoneEmojis(s.text);
    return emojiCount(s.text) !== s.count || demojize(s.text) !== s.alias || detoned !== s.detoned || demojize(detoned) !== s.detoned_alias;
  });
  assert.deepEqual(wrong.map((s) => s.text), []);
});

test('semantics.md#feedback-reactions names: skin tones, a ZWJ family, flags, a keycap', () => {
  assert.equal(demojize('👍🏽'), ':thumbs_up_medium_skin_tone:');
  assert.equal(detoneEmojis('👍🏽'), '👍');
  assert.equal(demojize('👨‍👩‍👧'), ':family_man_woman_girl:');
  assert.equal(demojize('🇺🇸'), ':United_States:');
  assert.equal(demojize('🏴󠁧󠁢󠁥󠁮󠁧󠁿'), ':England:');
  assert.equal(demojize('1️⃣'), ':keycap_1:');
  assert.equal(emojiCount('a👍b'), 1);
  assert.equal(emojiCount('👨‍👩‍👧‍👦‍👦'), 2, 'a non-RGI ZWJ sequence counts its members');
});

test('a long text is scanned in linear time', () => {
  const text = 'x'.repeat(1 << 20);
  const started = performance.now();
  assert.equal(emojiCount(text), 0);
  assert.ok(performance.now() - started < 2000, 'a 1 MiB text takes well under 2 s');
});
