// Watched-set scale benchmark (issue 16): memory of the in-memory watched-script index, the time to scan
// a block against it, and start-up time to load it from the database, with 10,000, 100,000 and 1,000,000
// watched scripts. Scanning must stay flat in the number of scripts and linear in the block's size.
// Run: node --max-old-space-size=4096 bin/run-ts.js bench/watched-scale.ts   (env: BENCH_SCALE_MAX, default 1000000)
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseBlock } from '../src/bitcoin/raw-block.ts';
import { coinbaseParts, serializeBlock, serializeHeader, serializeTx, type TxParts } from '../src/devchain/block-builder.ts';
import { WatchedSet } from '../src/chain/watched-set.ts';
import { openDb } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MAX = Number(process.env.BENCH_SCALE_MAX ?? 1_000_000);
const SIZES = [10_000, 100_000, 1_000_000].filter((n) => n <= MAX);
const BLOCKS = [1_000, 3_000, 6_000];

const p2wpkh = () => Uint8Array.from([0x00, 0x14, ...randomBytes(20)]);

function block(txCount: number, paying: Uint8Array[]): Uint8Array {
  const txs: Uint8Array[] = [serializeTx(coinbaseParts({ height: 900_000, value: 312_500_000n, script: p2wpkh(), witnessCommitment: new Uint8Array(32) }))];
  for (let i = 1; i < txCount; i++) {
    const outputs: TxParts['outputs'] = [{ value: 10_000n, script: i <= paying.length ? paying[i - 1]! : p2wpkh() }, { value: 5_000n, script: p2wpkh() }];
    txs.push(serializeTx({ version: 2, inputs: [{ prevTxid: randomBytes(32).toString('hex'), vout: 0, witness: [randomBytes(72), randomBytes(33)] }], outputs, locktime: 0 }));
  }
  const header = serializeHeader({ version: 0x20000000, prevHash: '00'.repeat(32), merkleRoot: new Uint8Array(32), time: 1_750_000_000, bits: 0x17030ecd, nonce: 0 });
  return serializeBlock(header, txs);
}

/** CPU ms of a block scan as the watcher does it: parse, match every output's script and every input's outpoint. */
function scanMs(set: WatchedSet, bytes: Uint8Array): { ms: number; hits: number } {
  const runs: number[] = [];
  let hits = 0;
  for (let r = 0; r < 15; r++) {
    gc();
    const c0 = process.cpuUsage();
    hits = 0;
    for (const tx of parseBlock(bytes).txs) {
      for (const o of tx.outputs) if (set.scripts.get(o.script) !== undefined) hits++;
      if (!tx.coinbase) for (const i of tx.inputs) if (set.outpoints.has(`${i.prevTxid}:${i.vout}`)) hits++;
    }
    const c = process.cpuUsage(c0);
    runs.push((c.user + c.system) / 1000);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[Math.floor(runs.length / 2)]!, hits };
}

function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

console.log('satgate watched-set scale benchmark');
console.log(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; CPU time, median of 15 scans`);
const blocks = BLOCKS.map((n) => ({ n, paying: Array.from({ length: 10 }, p2wpkh) })).map((b) => ({ ...b, bytes: block(b.n, b.paying) }));
const rows: string[] = [];
for (const size of SIZES) {
  const before = heapMb();
  const set = new WatchedSet('test');
  for (let i = 0; i < size; i++) set.addScript(p2wpkh(), { addressId: BigInt(i + 1), walletId: 1n });
  for (const b of blocks) b.paying.forEach((s, k) => set.addScript(s, { addressId: BigInt(size + k + 1), walletId: 1n }));
  const mb = heapMb() - before;
  const scans = blocks.map((b) => scanMs(set, b.bytes));
  rows.push(`| ${size.toLocaleString('en')} | ${mb.toFixed(0)} MB (${((mb * 2 ** 20) / size).toFixed(0)} B/script) | ${scans.map((s, i) => `${s.ms.toFixed(1)} ms (${(blocks[i]!.bytes.length / 1e6).toFixed(2)} MB, ${s.hits} hits)`).join(' | ')} |`);
  process.stdout.write(`  ${size} scripts measured\n`);
}
console.log('');
console.log(`| watched scripts | heap of the index | ${BLOCKS.map((n) => `scan, ${n} txs`).join(' | ')} |`);
console.log(`|---|---|${BLOCKS.map(() => '---').join('|')}|`);
for (const r of rows) console.log(r);

// Start-up: load the largest watched set from a SQLite database, as ChainService.configure does.
const largest = SIZES.at(-1)!;
const dir = mkdtempSync(join(tmpdir(), 'satgate-scale-'));
try {
  const db = openDb({ engine: 'sqlite', file: join(dir, 'scale.sqlite') });
  await migrateToLatest(db);
  const raw = (await import('better-sqlite3')).default;
  const direct = new raw(join(dir, 'scale.sqlite'));
  direct.prepare(
    `insert into wallets (api_id, pub, mode, network, script_type, wallet_type, local_currency, box_public_key, box_secret_sealed, sign_public_key, sign_secret_sealed, created_at, updated_at)
     values ('test_scale', 'scale', 'test', 'regtest', 'p2wpkh', 3, 'usd', 'x', 'x', 'x', 'x', 0, 0)`,
  ).run();
  const insert = direct.prepare(`insert into addresses (wallet_id, derivation_index, address, script_hex, created_at, purpose) values (1, ?, ?, ?, 0, 'payment')`);
  direct.transaction(() => {
    for (let i = 0; i < largest; i++) insert.run(i, `addr${i}`, Buffer.from(p2wpkh()).toString('hex'));
  })();
  direct.close();
  const before = heapMb();
  const t0 = performance.now();
  const set = new WatchedSet('test');
  await set.load(db);
  const ms = performance.now() - t0;
  console.log(`\nstart-up: loading ${set.size.toLocaleString('en')} watched scripts from SQLite took ${(ms / 1000).toFixed(1)} s (heap after: +${(heapMb() - before).toFixed(0)} MB)`);
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
