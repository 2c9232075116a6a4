#!/usr/bin/env node
/**
 * The packed package.json without the `prepare` script: in a checkout, `prepare` builds dist/
 * on `npm ci` / `npm install`, but in a published tarball it is an install script npm warns
 * about ("has install scripts not yet covered by allowScripts") and never needs (dist/ is in
 * the tarball). `npm pack` runs prepare (the build), then `prepack` (this script, `strip`),
 * packs, then `postpack` (`restore`). The checkout's file is kept beside it meanwhile; a pack
 * that died half way is repaired by the next strip.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const manifest = join(root, 'package.json');
const kept = join(root, 'package.json.checkout');

const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(kept)) renameSync(kept, manifest); // an earlier pack that never restored
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  writeFileSync(kept, text);
  delete pkg.scripts.prepare;
  writeFileSync(manifest, JSON.stringify(pkg, null, 2) + '\n');
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
