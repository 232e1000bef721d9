#!/usr/bin/env node
// `npm run build`: compiles every TypeScript file under src/ (tests excluded) to dist/ with source maps, copies the
// other files under src/ (JSON, page assets) beside them, and writes dist/.build-stamp, which bin/satgate.js and
// tools/start.mjs compare with the sources' times to tell whether dist/ is fresh. Generic on purpose: a new folder
// or asset under src/ is built without touching this file.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

let assets = 0;
function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(path);
    else if (!entry.name.endsWith('.ts')) {
      const target = join(dist, relative(src, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
      assets++;
    }
  }
}
copyAssets(src);
writeFileSync(join(dist, '.build-stamp'), `${new Date().toISOString()}\n`);
console.error(`built dist/ from src/ (${assets} asset file(s) copied)`);
