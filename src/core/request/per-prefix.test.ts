import assert from 'node:assert/strict';
import { test } from 'node:test';
import { perPrefix } from './per-prefix.ts';

test('perPrefix builds once per prefix and hands back the same value after', () => {
  const built: string[] = [];
  const models = perPrefix((p: string) => {
    built.push(p);
    return { key: `${p}user_id` };
  });
  const svc = models('svc_');
  assert.equal(models('svc_'), svc);
  assert.deepEqual(models('wb_'), { key: 'wb_user_id' });
  assert.deepEqual(built, ['svc_', 'wb_']);
});
