import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthenticationError, PermissionDeniedError } from '../core/errors.ts';
import {
  MALFORMED_CREDENTIALS,
  MISSING_CREDENTIALS,
  parseBasicAuth,
  parseGrant,
  Users,
  WRONG_CREDENTIALS,
} from './basic-auth.ts';

const basic = (text: string) => 'Basic ' + Buffer.from(text, 'utf8').toString('base64');

function authError(fn: () => unknown): AuthenticationError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AuthenticationError, `expected AuthenticationError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a 401');
}

describe('semantics.md#auth-basic parseBasicAuth', () => {
  it('splits user and password at the first colon (passwords may hold colons)', () => {
    assert.deepEqual(parseBasicAuth(basic('api:k:e:y')), { user: 'api', password: 'k:e:y' });
    assert.deepEqual(parseBasicAuth(basic('api:')), { user: 'api', password: '' });
  });

  it('accepts the scheme in any case and UTF-8 credentials', () => {
    assert.deepEqual(parseBasicAuth('bAsIc ' + Buffer.from('zoë:pässwörd').toString('base64')), {
      user: 'zoë',
      password: 'pässwörd',
    });
  });

  it('semantics.md#auth-401: a missing or blank header is a 401 naming what is missing', () => {
    for (const header of [undefined, '', '   ']) {
      const e = authError(() => parseBasicAuth(header));
      assert.equal(e.status, 401);
      assert.deepEqual(e.body(), { reason: MISSING_CREDENTIALS });
    }
  });

  it('semantics.md#auth-401: other schemes, bad base64 and a missing colon are 401 malformed', () => {
    for (const header of ['Bearer abc', 'Basic', 'Basic !!!!', 'Basic a', 'Basic YQ== extra', basic('nocolon')]) {
      const e = authError(() => parseBasicAuth(header));
      assert.equal(e.status, 401, header);
      assert.deepEqual(e.body(), { reason: MALFORMED_CREDENTIALS }, header);
    }
  });
});

describe('semantics.md#auth-basic grants', () => {
  it('parses the three grant forms', () => {
    assert.deepEqual(parseGrant('*'), { kind: 'all' });
    assert.deepEqual(parseGrant('acme/*'), { kind: 'entity', entity: 'acme' });
    assert.deepEqual(parseGrant('acme/bot'), { kind: 'project', projectId: 'acme/bot' });
  });

  it('rejects anything else', () => {
    for (const text of ['', 'acme', '*/bot', 'acme/b*', 'a/b/c', '/bot', 'acme/', '**', 'ac me/bot']) {
      assert.equal(parseGrant(text), undefined, text);
    }
  });

  const users = new Users([
    { name: 'alice', password: 'wonderland', projects: ['acme/*'] },
    { name: 'bob', password: 'builder', projects: ['x/y'] },
    { name: 'root', password: 'toor', projects: ['*'] },
    { name: 'nobody', password: 'none', projects: [] },
  ]);

  it('entity/* covers every project of that entity only', () => {
    assert.equal(users.mayAccess('alice', 'acme/bot'), true);
    assert.equal(users.mayAccess('alice', 'acme/'), false);
    assert.equal(users.mayAccess('alice', 'acme'), false);
    assert.equal(users.mayAccess('alice', 'acmex/bot'), false);
    assert.equal(users.mayAccess('alice', 'x/acme'), false);
    // A pattern never matches across a '/' (issue 11).
    assert.equal(users.mayAccess('alice', 'acme/x/y'), false);
    assert.equal(users.mayAccess('alice', 'acme/../globex/rag-search'), false);
  });

  it('an exact grant covers that project only; * covers all; [] covers none', () => {
    assert.equal(users.mayAccess('bob', 'x/y'), true);
    assert.equal(users.mayAccess('bob', 'x/yz'), false);
    assert.equal(users.mayAccess('root', 'any/thing'), true);
    assert.equal(users.mayAccess('nobody', 'x/y'), false);
    assert.equal(users.mayAccess('mallory', 'x/y'), false);
  });

  it('authenticate → ctx whose authorize throws the 403 PermissionDeniedError', () => {
    const ctx = users.authenticate(basic('alice:wonderland'));
    assert.equal(ctx.userId, 'alice');
    ctx.authorize('acme/bot');
    try {
      ctx.authorize('x/y');
      assert.fail('expected a 403');
    } catch (e) {
      assert.ok(e instanceof PermissionDeniedError);
      assert.equal(e.status, 403);
      assert.equal(e.code, 'TQ_PROJECT_FORBIDDEN');
      assert.deepEqual(e.body(), { reason: "User 'alice' has no access to project 'x/y'" });
    }
  });

  it('semantics.md#auth-401: wrong password and unknown user give the same 401', () => {
    for (const header of [basic('alice:wrong'), basic('mallory:wonderland'), basic('alice:wonderlan'), basic('alice:wonderland ')]) {
      const e = authError(() => users.authenticate(header));
      assert.deepEqual(e.body(), { reason: WRONG_CREDENTIALS });
    }
  });

  it('the constructor refuses duplicate users, colons in names and bad grants', () => {
    assert.throws(() => new Users([{ name: 'a', password: 'p', projects: [] }, { name: 'a', password: 'q', projects: [] }]), /duplicate user 'a'/);
    assert.throws(() => new Users([{ name: 'a:b', password: 'p', projects: [] }]), /invalid user name/);
    assert.throws(() => new Users([{ name: 'a', password: 'p', projects: ['acme'] }]), /invalid grant 'acme'/);
  });
});
