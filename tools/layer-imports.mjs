#!/usr/bin/env node
// Counts imports in src/ (tests excluded) that run from a lower layer up to a higher one.
// Usage: node tools/layer-imports.mjs [--list]
// The layers, lowest first; a folder may import its own layer and any lower one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const LAYERS = [
  ['core', 'money'],
  ['config', 'security', 'bitcoin', 'db'],
  ['http'],
  ['chain', 'notify', 'rates'],
  ['wallets', 'pages'],
  ['payments'],
  ['devchain'],
  ['app'],
  ['cli'],
];
const rankOf = new Map(LAYERS.flatMap((folders, rank) => folders.map((f) => [f, rank])));
// A folder not listed yet (a new capability) sits with the capabilities, above payments' inputs.
const CAPABILITY_RANK = rankOf.get('payments');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const list = process.argv.includes('--list');

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mjs|js)$/.test(name) && !/\.test\.ts$/.test(name) && !path.includes(`${join('pages', 'assets')}`)) yield path;
  }
}

const folderOf = (path) => relative(root, path).split(/[\\/]/)[0];
const rank = (folder) => rankOf.get(folder) ?? CAPABILITY_RANK;

let count = 0;
for (const file of sourceFiles(root)) {
  const from = folderOf(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:import|export)\s[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const target = folderOf(resolve(dirname(file), match[1] ?? match[2]));
    if (target === from || target.startsWith('..')) continue;
    if (rank(target) > rank(from)) {
      count += 1;
      if (list) console.log(`${relative(root, file)} -> ${target}/ (${match[1] ?? match[2]})`);
    }
  }
}
console.log(`imports from a lower layer to a higher one: ${count}`);
