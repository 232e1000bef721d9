// Chain-scan benchmark (DESIGN.md section 4 "Speed"): parse a synthetic mainnet-sized block with
// the raw walker, then match every output and input against 100,000 watched scripts/outpoints;
// btc-signer's decoder and a Set of hex strings are the baselines.
// Run: node bin/run-ts.js bench/chain-scan.ts
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Transaction, RawTx } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { parseBlock } from '../src/bitcoin/raw-block.ts';
import { ScriptIndex } from '../src/bitcoin/script-index.ts';
import { coinbaseParts, serializeBlock, serializeTx, serializeHeader, type TxParts } from '../src/devchain/block-builder.ts';

const TX_COUNT = 3_000;
const WATCHED = 100_000;
const ITERATIONS = 40;

// Deterministic PRNG (mulberry32) so every run measures the same block.
let seed = 0x5a7ea7e;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function randBytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}
function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => Array.from(p)));
}

/** A random output script with a mainnet-like type mix. */
function randomScript(): Uint8Array {
  const r = rand();
  if (r < 0.45) return concat([0x00, 0x14], randBytes(20)); // p2wpkh
  if (r < 0.65) return concat([0x51, 0x20], randBytes(32)); // p2tr
  if (r < 0.8) return concat([0xa9, 0x14], randBytes(20), [0x87]); // p2sh
  if (r < 0.92) return concat([0x76, 0xa9, 0x14], randBytes(20), [0x88, 0xac]); // p2pkh
  if (r < 0.97) return concat([0x00, 0x20], randBytes(32)); // p2wsh
  return concat([0x6a, 0x28], randBytes(40)); // OP_RETURN
}

function randomTx(): TxParts {
  const nIn = rand() < 0.7 ? 1 : 1 + Math.floor(rand() * 4);
  const nOut = rand() < 0.6 ? 2 : 1 + Math.floor(rand() * 5);
  const inputs: TxParts['inputs'] = [];
  for (let i = 0; i < nIn; i++) {
    const kind = rand();
    const prevTxid = hex.encode(randBytes(32));
    const vout = Math.floor(rand() * 4);
    if (kind < 0.6) inputs.push({ prevTxid, vout, witness: [randBytes(72), randBytes(33)] });
    else if (kind < 0.8) inputs.push({ prevTxid, vout, witness: [randBytes(64)] });
    else inputs.push({ prevTxid, vout, scriptSig: randBytes(107) });
  }
  const outputs: TxParts['outputs'] = [];
  for (let i = 0; i < nOut; i++) outputs.push({ value: BigInt(Math.floor(rand() * 1e9)), script: randomScript() });
  return { version: 2, inputs, outputs, locktime: 0 };
}

// --- build the block and the watched sets ---
const txParts = Array.from({ length: TX_COUNT - 1 }, randomTx);
const coinbase = serializeTx(coinbaseParts({ height: 900_000, value: 312_500_000n, script: randomScript(), witnessCommitment: new Uint8Array(32) }));
const txBytes = [coinbase, ...txParts.map((t) => serializeTx(t))];
const header = serializeHeader({ version: 0x20000000, prevHash: '00'.repeat(32), merkleRoot: new Uint8Array(32), time: 1_750_000_000, bits: 0x17030ecd, nonce: 0 });
const blockBytes = serializeBlock(header, txBytes);

const scriptIndex = new ScriptIndex<number>();
const hexSet = new Map<string, number>();
// Watched outpoints keyed by txid (the walker already yields it as a string), then vout.
const outpoints = new Map<string, number[]>();
const watchOutpoint = (txid: string, vout: number) => {
  const vouts = outpoints.get(txid);
  if (vouts) vouts.push(vout);
  else outpoints.set(txid, [vout]);
};
for (let i = 0; scriptIndex.size < WATCHED; i++) {
  const s = randomScript();
  scriptIndex.add(s, i);
  hexSet.set(hex.encode(s), i);
  watchOutpoint(hex.encode(randBytes(32)), i % 3);
}
// The block pays 12 watched scripts and spends 5 watched outpoints.
for (let k = 0; k < 12; k++) {
  const o = txParts[k * 200]!.outputs[0]!;
  scriptIndex.add(o.script, WATCHED + k);
  hexSet.set(hex.encode(o.script), WATCHED + k);
}
for (let k = 0; k < 5; k++) {
  const i = txParts[k * 300 + 7]!.inputs[0]!;
  watchOutpoint(i.prevTxid, i.vout);
}

// --- the measured operations ---
function walkOnly(): number {
  return parseBlock(blockBytes).txs.length;
}

function walkAndMatch(): number {
  let hits = 0;
  for (const tx of parseBlock(blockBytes).txs) {
    for (const o of tx.outputs) if (scriptIndex.get(o.script) !== undefined) hits++;
    if (tx.coinbase) continue;
    for (const i of tx.inputs) if (outpoints.get(i.prevTxid)?.includes(i.vout)) hits++;
  }
  return hits;
}

const preParsed = parseBlock(blockBytes);
function matchOnly(): number {
  let hits = 0;
  for (const tx of preParsed.txs) {
    for (const o of tx.outputs) if (scriptIndex.get(o.script) !== undefined) hits++;
    if (tx.coinbase) continue;
    for (const i of tx.inputs) if (outpoints.get(i.prevTxid)?.includes(i.vout)) hits++;
  }
  return hits;
}

function matchOnlyHexSet(): number {
  let hits = 0;
  for (const tx of preParsed.txs) for (const o of tx.outputs) if (hexSet.has(hex.encode(o.script))) hits++;
  return hits;
}

function walkAndMatchHexSet(): number {
  let hits = 0;
  for (const tx of parseBlock(blockBytes).txs) {
    for (const o of tx.outputs) if (hexSet.has(hex.encode(o.script))) hits++;
  }
  return hits;
}

const LOOSE = { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true };
function scureFromRaw(): number {
  let n = 0;
  for (const t of txBytes) if (Transaction.fromRaw(t, LOOSE).id) n++;
  return n;
}

function scureRawDecode(): number {
  let n = 0;
  for (const t of txBytes) n += RawTx.decode(t).outputs.length;
  return n;
}

interface Row {
  name: string;
  times: number[];
  result: number;
}

// A full collection before every timed run, so garbage from one run is not billed to the next.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Run the operations round-robin (so machine load hits all alike), recording each run's CPU time. */
function measure(ops: [string, () => number][], iterations: number): Row[] {
  const rows: Row[] = ops.map(([name, fn]) => ({ name, times: [], result: fn() })); // warm-up
  for (let i = 0; i < iterations; i++) {
    for (const [k, [, fn]] of ops.entries()) {
      collect();
      // CPU time of this process rather than wall time: the figures then survive a busy machine.
      const c0 = process.cpuUsage();
      rows[k]!.result = fn();
      const c = process.cpuUsage(c0);
      rows[k]!.times.push((c.user + c.system) / 1000);
    }
  }
  return rows;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const min = (xs: number[]) => Math.min(...xs);

console.log(`block: ${TX_COUNT} transactions, ${(blockBytes.length / 1e6).toFixed(2)} MB; watched: ${scriptIndex.size} scripts, ${outpoints.size} outpoint txids`);
const rows = [
  ...measure(
    [
      ['walker: parse block (txids included)', walkOnly],
      ['walker: parse + match outputs (ScriptIndex) + inputs (outpoint Map)', walkAndMatch],
      ['walker: parse + match outputs (Set of hex strings)', walkAndMatchHexSet],
      ['match only, parsed block: ScriptIndex + outpoint Map', matchOnly],
      ['match only, parsed block: Set of hex strings (outputs)', matchOnlyHexSet],
      ['btc-signer: RawTx.decode only (no txid), per tx', scureRawDecode],
    ],
    ITERATIONS,
  ),
  ...measure([['btc-signer: Transaction.fromRaw + id, per tx', scureFromRaw]], 5),
];
const base = rows[0]!;
console.log('\n| operation (CPU time) | median ms | min ms | median vs walker parse | result |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.name} | ${median(r.times).toFixed(2)} | ${min(r.times).toFixed(2)} | ${(median(r.times) / median(base.times)).toFixed(2)}x | ${r.result} |`);
}
const ratio = (a: Row, b: Row) => (median(a.times) / median(b.times)).toFixed(1);
console.log(`\nScriptIndex lookups are ${ratio(rows[4]!, rows[3]!)}x faster than a Set of hex strings (match-only rows);`);
console.log(`the walker parses ${ratio(rows[6]!, base)}x faster than btc-signer's Transaction.fromRaw + id.`);
