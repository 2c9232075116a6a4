import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadUsersFile, parseUsersFile, UsersFileError } from './users-file.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const parse = (doc: unknown) => parseUsersFile(typeof doc === 'string' ? doc : JSON.stringify(doc), 'users.json');

function problem(doc: unknown): string {
  try {
    parse(doc);
  } catch (e) {
    assert.ok(e instanceof UsersFileError, String(e));
    return e.message;
  }
  assert.fail('expected a UsersFileError');
}

describe('semantics.md#auth-basic users file', () => {
  it('reads the documented format', () => {
    assert.deepEqual(
      parse({ users: [{ name: 'alice', password: 's3cret', projects: ['acme/*', 'x/y'] }, { name: 'api', password: 'k', projects: ['*'] }] }),
      [
        { name: 'alice', password: 's3cret', projects: ['acme/*', 'x/y'] },
        { name: 'api', password: 'k', projects: ['*'] },
      ],
    );
  });

  it('names the file and the JSON path of each problem', () => {
    assert.match(problem('{"users": ['), /^users\.json: not valid JSON: /);
    assert.equal(problem([]), 'users.json: expected an object {"users": [...]}');
    assert.equal(problem({ users: [], extra: 1 }), 'users.json: extra: unknown key (expected only "users")');
    assert.equal(problem({ users: {} }), 'users.json: users: expected an array of users');
    assert.equal(problem({ users: [] }), 'users.json: users: lists no users');
    assert.equal(problem({ users: ['alice'] }), 'users.json: users[0]: expected an object {"name", "password", "projects"}');
    assert.equal(
      problem({ users: [{ name: 'a', password: 'p', projects: [], role: 'admin' }] }),
      'users.json: users[0].role: unknown key (expected name, password, projects, tokens)',
    );
    assert.equal(problem({ users: [{ name: 'a', password: 'p' }] }), 'users.json: users[0].projects: missing');
    assert.equal(problem({ users: [{ name: '', password: 'p', projects: [] }] }), 'users.json: users[0].name: expected a non-empty string');
    assert.equal(
      problem({ users: [{ name: 'a:b', password: 'p', projects: [] }] }),
      "users.json: users[0].name: 'a:b' contains a colon, which Basic auth cannot carry",
    );
    assert.equal(problem({ users: [{ name: 'a', password: 7, projects: [] }] }), 'users.json: users[0].password: expected a non-empty string');
    assert.equal(problem({ users: [{ name: 'a', password: 'p', projects: '*' }] }), 'users.json: users[0].projects: expected an array of grants');
    assert.equal(
      problem({ users: [{ name: 'a', password: 'p', projects: ['*', 'acme'] }] }),
      'users.json: users[0].projects[1]: invalid grant "acme" (expected "entity/project", "entity/*" or "*")',
    );
    assert.equal(
      problem({ users: [{ name: 'a', password: 'p', projects: [] }, { name: 'a', password: 'q', projects: [] }] }),
      "users.json: users[1].name: duplicate user 'a'",
    );
  });

  it('tokens: optional Bearer tokens, each a non-empty string without spaces, used once in the file', () => {
    assert.deepEqual(parse({ users: [{ name: 'ci', password: 'p', projects: ['ci/*'], tokens: ['t1', 't2'] }] }), [
      { name: 'ci', password: 'p', projects: ['ci/*'], tokens: ['t1', 't2'] },
    ]);
    assert.equal(problem({ users: [{ name: 'a', password: 'p', projects: [], tokens: 't' }] }), 'users.json: users[0].tokens: expected an array of Bearer tokens');
    for (const bad of ['', 'a b', 7]) {
      assert.equal(problem({ users: [{ name: 'a', password: 'p', projects: [], tokens: [bad] }] }), 'users.json: users[0].tokens[0]: expected a non-empty string without spaces');
    }
    assert.equal(
      problem({ users: [{ name: 'a', password: 'p', projects: [], tokens: ['t'] }, { name: 'b', password: 'q', projects: [], tokens: ['u', 't'] }] }),
      'users.json: users[1].tokens[1]: this token is listed twice in the file',
    );
  });

  it('loadUsersFile reads from disk and passes ENOENT through', () => {
    const dir = tempDir('tq-users-');
    const file = join(dir, 'users.json');
    writeFileSync(file, JSON.stringify({ users: [{ name: 'api', password: 'k', projects: ['*'] }] }));
    assert.deepEqual(loadUsersFile(file), [{ name: 'api', password: 'k', projects: ['*'] }]);
    assert.throws(() => loadUsersFile(join(dir, 'missing.json')), { code: 'ENOENT' });
  });
});
