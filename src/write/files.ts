/**
 * `file_create` (semantics.md#writes-file): files are stored per project under their
 * content digest (semantics.md#digest-file); writing the same bytes again changes nothing.
 */
import type { Engine } from '../api/types.ts';
import { fileDigest } from '../core/digest.ts';

export function createFile(engine: Engine, projectId: string, bytes: Uint8Array): { digest: string } {
  const digest = fileDigest(bytes);
  const files = engine.store.projectForWrite(projectId).files;
  if (!files.has(digest)) files.set(digest, bytes);
  return { digest };
}
