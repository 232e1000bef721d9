#!/usr/bin/env node
// Writes test/fixtures/schema/released-migration-sets.json: the migration set registered in
// src/db/migrations/index.ts at every commit of `main` that changed it (first parent, oldest first). Each set is a
// schema some installation may be on; src/db/schema-version.test.ts builds a database per set and upgrades it.
// Re-run after a migration lands: node tools/released-migration-sets.mjs [branch]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

const branch = process.argv[2] ?? 'main';
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' });
const commits = git('log', '--first-parent', '--reverse', '--format=%H %cI', branch, '--', 'src/db/migrations/index.ts').trim().split('\n');
const sets = [];
for (const line of commits) {
  const [commit, date] = line.split(' ');
  const text = git('show', `${commit}:src/db/migrations/index.ts`);
  const files = new Map([...text.matchAll(/import \{ (\w+) \} from '\.\/(\d{4}-[\w-]+)\.ts'/g)].map((m) => [m[1], m[2]]));
  const list = /MIGRATIONS[^=]*=\s*\[([^\]]*)\]/s.exec(text)?.[1] ?? '';
  const names = list.split(',').map((s) => s.trim()).filter(Boolean).map((id) => files.get(id) ?? id);
  if (JSON.stringify(names) !== JSON.stringify(sets.at(-1)?.migrations)) sets.push({ commit: commit.slice(0, 12), date, migrations: names });
}
mkdirSync('test/fixtures/schema', { recursive: true });
writeFileSync('test/fixtures/schema/released-migration-sets.json', `${JSON.stringify(sets, null, 2)}\n`);
console.log(`${sets.length} released migration sets written`);
