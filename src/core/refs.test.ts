/**
 * Ref parsing never throws: a malformed percent-escape decodes as Weave's server decodes it
 * (Python's `urllib.parse.unquote` keeps it as it is), so no ref string can fail a write or a read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { extractRefs, parseRef, unquoteRefPart } from './refs.ts';

describe('unquoteRefPart', () => {
  it('decodes well-formed escapes and keeps malformed ones as Python unquote does', () => {
    assert.equal(unquoteRefPart('a%2Fb%3Ac'), 'a/b:c');
    assert.equal(unquoteRefPart('o%'), 'o%');
    assert.equal(unquoteRefPart('o%zz%41'), 'o%zzA');
    assert.equal(unquoteRefPart('%E2%82%AC%'), '€%');
    // Bytes that are not UTF-8 become U+FFFD, as unquote(errors='replace').
    assert.equal(unquoteRefPart('x%FFy'), 'x\uFFFDy');
    assert.equal(unquoteRefPart('%C3'), '\uFFFD');
  });

  it('never throws, whatever the text', () => {
    fc.assert(fc.property(fc.stringMatching(/^[%0-9A-Fa-fxz€]*$/), (s) => typeof unquoteRefPart(s) === 'string'));
  });
});

describe('parseRef with bad escapes', () => {
  it('parses the name of weave:///acme/x/object/o%:v leniently instead of throwing', () => {
    assert.deepEqual(parseRef('weave:///acme/x/object/o%:v'), { scheme: 'weave', projectId: 'acme/x', kind: 'object', name: 'o%', version: 'v', extra: [] });
    assert.deepEqual(extractRefs({ a: 'weave:///acme/x/object/o%:v', b: 'weave:///acme/x/op/%E0%A4%A:v' }), ['weave:///acme/x/object/o%:v', 'weave:///acme/x/op/%E0%A4%A:v']);
  });
});
