import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CredentialsError, generatePassword, resolveUsers } from './credentials.ts';
import { UsersFileError } from './users-file.ts';
import { tempDir } from '../io/temp-dir.testing.ts';

const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

function usersFile(doc: unknown): string {
  const file = join(tempDir('tq-cred-'), 'users.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe('semantics.md#auth-basic tq serve credentials', () => {
  it('no users anywhere: one generated `api` user with a random password and every grant', () => {
    const { users, generated } = resolveUsers({ env: {} });
    assert.ok(generated);
    assert.equal(generated.user, 'api');
    assert.match(generated.password, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(generated.password, resolveUsers({ env: {} }).generated?.password);
    assert.equal(users.authenticate(basic('api', generated.password)).userId, 'api');
    assert.equal(users.mayAccess('api', 'any/project'), true);
    assert.notEqual(generatePassword(), generatePassword());
  });

  it('--user/--password: that user, all projects; --password alone names the user api', () => {
    const a = resolveUsers({ user: 'ci', password: 'pw', env: {} });
    assert.equal(a.generated, undefined);
    assert.deepEqual(a.users.names(), ['ci']);
    assert.equal(a.users.mayAccess('ci', 'e/p'), true);
    assert.deepEqual(resolveUsers({ password: 'pw', env: {} }).users.names(), ['api']);
  });

  it('TQ_USER/TQ_PASSWORD are used when no flag is given; flags win over them', () => {
    assert.deepEqual(resolveUsers({ env: { TQ_USER: 'envuser', TQ_PASSWORD: 'x' } }).users.names(), ['envuser']);
    assert.deepEqual(resolveUsers({ env: { TQ_PASSWORD: 'x' } }).users.names(), ['api']);
    const flagged = resolveUsers({ user: 'flag', password: 'f', env: { TQ_USER: 'envuser', TQ_PASSWORD: 'x' } }).users;
    assert.deepEqual(flagged.names(), ['flag']);
  });

  it('inconsistent single-user settings are usage errors', () => {
    assert.throws(() => resolveUsers({ user: 'ci', env: {} }), new CredentialsError('--user needs --password'));
    assert.throws(() => resolveUsers({ env: { TQ_USER: 'ci' } }), new CredentialsError('TQ_USER needs TQ_PASSWORD'));
    assert.throws(() => resolveUsers({ password: '', env: {} }), new CredentialsError('--password must not be empty'));
    assert.throws(() => resolveUsers({ user: 'a:b', password: 'p', env: {} }), CredentialsError);
  });

  it('--users FILE plus a single user; the same name twice is refused', () => {
    const file = usersFile({ users: [{ name: 'alice', password: 'w', projects: ['acme/*'] }] });
    const { users, generated } = resolveUsers({ usersFile: file, password: 'k', env: {} });
    assert.equal(generated, undefined);
    assert.deepEqual(users.names(), ['alice', 'api']);
    assert.equal(users.mayAccess('alice', 'x/y'), false);
    assert.throws(() => resolveUsers({ usersFile: file, user: 'alice', password: 'k', env: {} }), CredentialsError);
    assert.throws(() => resolveUsers({ usersFile: usersFile({ users: [] }), env: {} }), UsersFileError);
  });
});
