// Whether dist/ was built after the last change under src/ (by modification time; a checkout touches what it changes).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** 'package' (no src/: an installed package), 'fresh', or 'stale' (no build, or a source newer than it). */
export function distState(root) {
  if (!existsSync(join(root, 'src'))) return 'package';
  const stamp = join(root, 'dist', '.build-stamp');
  if (!existsSync(stamp)) return 'stale';
  return newestUnder(join(root, 'src')) <= statSync(stamp).mtimeMs ? 'fresh' : 'stale';
}
