#!/usr/bin/env node
// Counts imports in src/ (tests excluded) that run from a lower layer up to a higher one, and circles of imports
// that span two or more folders (folders of one layer may import each other, but never round in a circle).
// Usage: node tools/layer-imports.mjs [--list]
// The layers, lowest first; a folder may import its own layer and any lower one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const LAYERS = [
  ['core', 'money'],
  ['config', 'security', 'bitcoin', 'db', 'i18n'],
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
/** folder -> folder -> one import that makes the edge (to name it in --list). */
const edges = new Map();
for (const file of sourceFiles(root)) {
  const from = folderOf(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:import|export)\s[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const target = folderOf(resolve(dirname(file), match[1] ?? match[2]));
    if (target === from || target.startsWith('..')) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(target)) edges.get(from).set(target, `${relative(root, file)} -> ${match[1] ?? match[2]}`);
    if (rank(target) > rank(from)) {
      count += 1;
      if (list) console.log(`${relative(root, file)} -> ${target}/ (${match[1] ?? match[2]})`);
    }
  }
}
console.log(`imports from a lower layer to a higher one: ${count}`);

// Tarjan's strongly connected components over the folder graph: a component of two or more folders is a circle.
const circles = [];
{
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) circles.push(component);
    }
  };
  for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);
}
if (list) {
  for (const circle of circles) {
    console.log(`circle: ${circle.join(', ')}`);
    for (const a of circle) for (const b of circle) if (edges.get(a)?.has(b)) console.log(`  ${edges.get(a).get(b)}`);
  }
}
console.log(`circles of imports spanning folders: ${circles.length}`);
