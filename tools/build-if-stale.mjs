#!/usr/bin/env node
// `npm start` on a clone: builds dist/ when a source under src/ changed since the last build, else does nothing,
// so the server always runs the compiled code, as an installed package does.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distState } from '../bin/dist-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (distState(root) === 'stale') {
  console.error('satgate: src/ changed since the last build; building dist/ first');
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('build.mjs', import.meta.url))], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
