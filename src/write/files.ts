/**
 * `file_create` (semantics.md#writes-file): files are stored per project under their
 * content digest (semantics.md#digest-file); writing the same bytes again changes nothing. A
 * client's `expected_digest` that differs from the content's is a 409 and nothing is stored
 * (semantics.md#writes-file-expected-digest).
 */
import type { Engine } from '../api/types.ts';
import { fileDigest } from '../core/digest.ts';
import { checkExpectedDigest } from './tables.ts';

export function createFile(engine: Engine, projectId: string, bytes: Uint8Array, expectedDigest: string | null = null): { digest: string } {
  const digest = fileDigest(bytes);
  checkExpectedDigest(expectedDigest, digest, 'file');
  const files = engine.store.projectForWrite(projectId).files;
  if (!files.has(digest)) files.set(digest, bytes);
  return { digest };
}
