import { open } from 'node:fs/promises';

/** fsyncs a directory, so that new files and renames in it survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
