#!/usr/bin/env node
// The satgate command. An installed package (no src/) runs the compiled dist/. In a clone it runs dist/ when it was
// built after the last source change, and otherwise (or with SATGATE_RUN_SOURCE=1, which the test suite sets) the
// TypeScript sources through tsx, a development dependency, so editing and testing need no build step.
import { fileURLToPath } from 'node:url';
import { distState } from './dist-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.env.SATGATE_RUN_SOURCE === '1' || distState(root) === 'stale') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  // Stack traces name the TypeScript lines.
  process.setSourceMapsEnabled(true);
  await import('../dist/cli/main.js');
}
