#!/usr/bin/env node
// Runs a TypeScript script (benchmarks, tools) through tsx: `node bin/run-ts.js bench/x.ts`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const script = process.argv[2];
if (!script) {
  console.error('usage: node bin/run-ts.js <script.ts> [args]');
  process.exit(2);
}
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(script)).href);
