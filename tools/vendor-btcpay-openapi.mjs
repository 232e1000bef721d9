#!/usr/bin/env node
// Vendors the store-integration parts of BTCPay Server's OpenAPI documents into
// test/support/fixtures/btcpay-greenfield-openapi.json, for src/greenfield/openapi-client.test.ts.
// Usage: node tools/vendor-btcpay-openapi.mjs <git dir of a btcpayserver/btcpayserver clone>
// Three generations: 2.x (the last commit before BTCPay added storeId-less routes, #7313), 1.x (tag v1.13.7, the
// OnChain/{cryptoCode} paths) and "storeId-less" (master, 2026-07-23: the operations of /api/v1/invoices/{id}…,
// /api/v1/payment-requests/{id}…, /api/v1/pull-payments/{id} and /api/v1/payouts/{id}… that 2.x does not have,
// from #7313 and #7433). Each keeps the paths of the files below (storeId-less: only those operations), and the
// components they reference (resolved across every swagger.template*.json of that commit). Nothing else is changed.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const gitDir = process.argv[2];
if (!gitDir) throw new Error('usage: node tools/vendor-btcpay-openapi.mjs <btcpayserver git dir>');
const DIR = 'BTCPayServer/wwwroot/swagger/v1';
const GENERATIONS = {
  '2.x': {
    commit: '53b85dd21b2ffab933ab90bb965b3047d4ebe7df',
    at: 'master, 2026-04-23: the parent of ad6fa344 (#7313, storeId-less routes)',
    files: ['health', 'invoices', 'payment-requests', 'pull-payments', 'stores-payment-methods', 'stores-wallet.on-chain', 'webhooks'],
  },
  '1.x': { commit: '3a7aafa216f7b9e0e2a916f82f4fa30a6061f849', at: 'tag v1.13.7', files: ['stores-payment-methods', 'stores-payment-methods.on-chain', 'stores-wallet.on-chain'] },
  'storeId-less': {
    commit: '03345c2886a58ea4d2f603cb6554b2e3f5d690a4',
    at: 'master, 2026-07-23: after ad6fa344 (#7313, storeId-less invoices, payment requests, pull payments) and b0999177 (#7433, /api/v1/payouts/{payoutId})',
    files: ['invoices', 'payment-requests', 'pull-payments'],
    // Only the operations at a path without {storeId} that 2.x does not have.
    only: (path, method, earlier) => !path.includes('{storeId}') && earlier['2.x'].paths[path]?.[method] === undefined,
  },
};
const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
const out = {
  'x-source': {
    repository: 'https://github.com/btcpayserver/btcpayserver',
    license: 'MIT (BTCPay Server contributors), as the repository\'s LICENSE',
    note: 'Paths and referenced components of BTCPayServer/wwwroot/swagger/v1/swagger.template.<file>.json, unchanged; vendored by tools/vendor-btcpay-openapi.mjs',
  },
  generations: {},
};
for (const [name, gen] of Object.entries(GENERATIONS)) {
  const all = git('ls-tree', '--name-only', gen.commit, `${DIR}/`).split('\n').filter((f) => /swagger\.template.*\.json$/.test(f));
  const components = {};
  for (const f of all) {
    const doc = JSON.parse(git('show', `${gen.commit}:${f}`));
    for (const [kind, entries] of Object.entries(doc.components ?? {})) Object.assign((components[kind] ??= {}), entries);
  }
  const paths = {};
  for (const f of gen.files) Object.assign(paths, JSON.parse(git('show', `${gen.commit}:${DIR}/swagger.template.${f}.json`)).paths);
  if (gen.only) {
    for (const [path, item] of Object.entries(paths)) {
      for (const method of METHODS) if (item[method] !== undefined && !gen.only(path, method, out.generations)) delete item[method];
      if (!METHODS.some((m) => item[m] !== undefined)) delete paths[path];
    }
  }
  // Keep the components reachable from the paths.
  const kept = {};
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) {
        const [, , kind, key] = v.split('/');
        if (kept[kind]?.[key] !== undefined) continue;
        const target = components[kind]?.[key];
        if (target === undefined) throw new Error(`${name}: unresolved ${v}`);
        (kept[kind] ??= {})[key] = target;
        visit(target);
      } else visit(v);
    }
  };
  visit(paths);
  out.generations[name] = { commit: gen.commit, at: gen.at, files: gen.files.map((f) => `${DIR}/swagger.template.${f}.json`), paths, components: kept };
}
const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'support', 'fixtures', 'btcpay-greenfield-openapi.json');
writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote ${target}`);
