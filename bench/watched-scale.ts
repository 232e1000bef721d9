// Watched-set scale benchmark (issues 16 and 39): memory of the watched-script set, the time to scan a block
// against it, and start-up time to load it from the database, with 10,000, 100,000 and 1,000,000 watched
// scripts. The compact set (typed arrays, issue 39) is measured beside the Map of objects it replaced
// (ScriptIndex, the baseline) in the same run. Goals: 1,000,000 scripts in at most 64 MB, loaded in at most
// 2 s, and a 3,000-transaction block matched within 1.2x of the baseline's time at 100,000.
// Run: npm run bench:scale   (env: BENCH_SCALE_MAX, default 1000000)
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseBlock } from '../src/bitcoin/raw-block.ts';
import { coinbaseParts, serializeBlock, serializeHeader, serializeTx, type TxParts } from '../src/devchain/block-builder.ts';
import { WatchedSet } from '../src/chain/watched-set.ts';
import { ScriptIndex } from '../src/bitcoin/script-index.ts';
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

interface ScriptLookup {
  get(script: Uint8Array): unknown;
}

/** CPU ms of a block scan as the watcher does it: parse, match every output's script and every input's outpoint. */
function scanMs(scripts: ScriptLookup, outpoints: Map<string, bigint>, bytes: Uint8Array): { ms: number; hits: number } {
  const runs: number[] = [];
  let hits = 0;
  for (let r = 0; r < 15; r++) {
    gc();
    const c0 = process.cpuUsage();
    hits = 0;
    for (const tx of parseBlock(bytes).txs) {
      for (const o of tx.outputs) if (scripts.get(o.script) !== undefined) hits++;
      if (!tx.coinbase) for (const i of tx.inputs) if (outpoints.has(`${i.prevTxid}:${i.vout}`)) hits++;
    }
    const c = process.cpuUsage(c0);
    runs.push((c.user + c.system) / 1000);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[Math.floor(runs.length / 2)]!, hits };
}

/** Heap plus typed arrays' backing stores (which live outside the heap). */
function memoryMb(): number {
  gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

console.log('satgate watched-set scale benchmark');
console.log(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; CPU time, median of 15 scans`);
const blocks = BLOCKS.map((n) => ({ n, paying: Array.from({ length: 10 }, p2wpkh) })).map((b) => ({ ...b, bytes: block(b.n, b.paying) }));
const rows: string[] = [];
const scan3000: Record<string, number> = {};
const KINDS = ['baseline: Map of objects (ScriptIndex)', 'compact set (WatchedSet)'] as const;

/** Builds one kind of set of `size` scripts (plus the blocks' paying ones), measures its memory and scans. */
function measure(kind: (typeof KINDS)[number], size: number): string {
  const scripts = Array.from({ length: size }, p2wpkh);
  const paying = blocks.flatMap((b) => b.paying);
  const before = memoryMb();
  let lookup: ScriptLookup;
  if (kind === KINDS[0]) {
    const index = new ScriptIndex<{ addressId: bigint; walletId: bigint }>();
    scripts.concat(paying).forEach((s, i) => index.add(s, { addressId: BigInt(i + 1), walletId: 1n }));
    lookup = index;
  } else {
    const set = new WatchedSet('test');
    set.scripts.reserve(size + paying.length, (size + paying.length) * 22);
    scripts.concat(paying).forEach((s, i) => set.addScript(s, { addressId: BigInt(i + 1), walletId: 1n }));
    lookup = set.scripts;
  }
  const mb = memoryMb() - before;
  const scans = blocks.map((b) => scanMs(lookup, new Map(), b.bytes));
  scan3000[`${kind}@${size}`] = scans[1]!.ms;
  return `| ${kind} | ${size.toLocaleString('en')} | ${mb.toFixed(0)} MB (${((mb * 2 ** 20) / size).toFixed(0)} B/script) | ${scans.map((s, i) => `${s.ms.toFixed(1)} ms (${(blocks[i]!.bytes.length / 1e6).toFixed(2)} MB, ${s.hits} hits)`).join(' | ')} |`;
}

for (const size of SIZES) {
  for (const kind of KINDS) {
    rows.push(measure(kind, size));
    process.stdout.write(`  ${kind}: ${size} scripts measured\n`);
  }
}
console.log('');
console.log(`| set | watched scripts | memory of the set | ${BLOCKS.map((n) => `scan, ${n} txs`).join(' | ')} |`);
console.log(`|---|---|---|${BLOCKS.map(() => '---').join('|')}|`);
for (const r of rows) console.log(r);
const base100k = scan3000['baseline: Map of objects (ScriptIndex)@100000'];
const compactMax = scan3000[`compact set (WatchedSet)@${SIZES.at(-1)}`];
if (base100k !== undefined && compactMax !== undefined) {
  console.log(`\nscan of a 3,000-transaction block: compact set at ${SIZES.at(-1)!.toLocaleString('en')} / baseline at 100,000 = ${(compactMax / base100k).toFixed(2)}x (goal <= 1.2x)`);
}

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
  const before = memoryMb();
  const t0 = performance.now();
  const set = new WatchedSet('test');
  await set.load(db);
  const ms = performance.now() - t0;
  console.log(`\nstart-up: loading ${set.size.toLocaleString('en')} watched scripts from SQLite took ${(ms / 1000).toFixed(2)} s (goal <= 2 s); memory after: +${(memoryMb() - before).toFixed(0)} MB (goal <= 64 MB), of which the set's arrays ${(set.scripts.byteSize / 2 ** 20).toFixed(0)} MB`);
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
