// A real bcoin@1.0.2 regtest full node, in-process, with a funded payer built on btc-signer.
// bcoin's regtest address formats differ from Core's (bech32 "rb"), so only scripts and
// bcoin's own addresses are handed to it.
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Transaction, p2wpkh } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { RpcClient } from '../chain/rpc-client.ts';
import { PayerShortError } from './payer-short.ts';
import { parseTransaction, wtxidOf, type RawTx } from '../bitcoin/raw-tx.ts';
import { parseBlock } from '../bitcoin/raw-block.ts';
import {
  coinbaseParts,
  grindHeader,
  merkleRoot,
  serializeBlock,
  serializeHeader,
  serializeTx,
  toDisplayHex,
  hash256,
  witnessCommitment,
} from './block-builder.ts';


// Just the parts of bcoin's (untyped, CommonJS) API this helper touches.
interface BcoinCoin {
  txid(): string;
  index: number;
  value: number;
  height: number;
  coinbase: boolean;
}
interface BcoinAddress {
  toString(network: string): string;
}
interface BcoinFullNode {
  /** Creates the data directories of a persistent (prefix) node. */
  ensure(): Promise<void>;
  open(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): void;
  close(): Promise<void>;
  getCoinsByAddress(addrs: BcoinAddress[]): Promise<BcoinCoin[]>;
  chain: {
    height: number;
    on(event: 'connect', listener: (entry: { rhash(): string }, block: { txs: Array<{ toRaw(): Buffer }> }) => void): void;
  };
  mempool: BcoinMempool;
}
interface BcoinMempool {
  on(event: 'tx', listener: (tx: { txid(): string; toRaw(): Buffer }) => void): void;
  lastFlush: number;
  map: Map<string, unknown>;
  cache: { sync(hash: string): void; flush(): Promise<void>; db: { binding: { iterator(options: Record<string, unknown>): unknown } } };
  _addBlock(block: { hash: string }, txs: unknown[]): Promise<unknown>;
  _removeBlock(block: { prevBlock: string }, txs: unknown[]): Promise<unknown>;
}
interface Bcoin {
  FullNode: new (options: Record<string, unknown>) => BcoinFullNode;
  Address: { fromScript(script: unknown): BcoinAddress };
  Script: { fromRaw(raw: Buffer): unknown };
}

const bcoin = createRequire(import.meta.url)('bcoin') as Bcoin;

/** A payment the payer sent: txid, raw hex, and the output index of each requested output. */
export interface Payment {
  txid: string;
  hex: string;
  vouts: number[];
}

export interface RegtestNodeOptions {
  /** Blocks mined at start (default 450: bcoin regtest activates segwit at 432; coinbases mature after 100). */
  blocks?: number;
  /** Fee rate the payer uses, sat/vB (default 2). */
  feeRate?: bigint;
  /** Keep the chain in this directory (LevelDB) instead of memory, so it survives restarts. */
  prefix?: string;
  /** The payer's private key (32 bytes); random by default. Keep it to keep the funds of a persistent chain. */
  payerKey?: Uint8Array;
}

const COINBASE_MATURITY = 100;
const HALVING_INTERVAL = 150; // regtest

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => srv.once('error', reject).listen(0, '127.0.0.1', resolve));
  const addr = srv.address();
  await new Promise((r) => srv.close(r));
  if (!addr || typeof addr === 'string') throw new Error('no free port');
  return addr.port;
}

/** Start a bcoin regtest node, mine past segwit activation, and return the harness. */
export async function startRegtestNode(options: RegtestNodeOptions = {}): Promise<RegtestNode> {
  const port = await freePort();
  const apiKey = randomBytes(16).toString('hex');
  const node = new bcoin.FullNode({
    network: 'regtest',
    // A chain on disk keeps its mempool on disk too: an unconfirmed development payment must survive a restart.
    ...(options.prefix ? { memory: false, prefix: options.prefix, persistentMempool: true } : { memory: true }),
    indexTX: true,
    indexAddress: true,
    listen: false,
    workers: false,
    httpHost: '127.0.0.1',
    httpPort: port,
    apiKey,
    logLevel: 'error',
    logConsole: false,
  });
  // bcoin only creates its data directories in ensure(); open() on a new prefix fails without them.
  if (options.prefix) {
    await node.ensure();
    persistMempoolReliably(node.mempool);
  }
  await node.open();
  const harness = new RegtestNode(node, `http://satgate:${apiKey}@127.0.0.1:${port}/`, options.feeRate ?? 2n, options.payerKey, Boolean(options.prefix));
  try {
    const missing = (options.blocks ?? 450) - node.chain.height;
    if (missing > 0) await harness.mine(missing);
  } catch (err) {
    await node.close();
    throw err;
  }
  return harness;
}

/**
 * Makes bcoin 1.0.2's persistent mempool keep what it should across a stop or a crash. Two gaps in it:
 * it writes the mempool cache at most every 10 s (and not on close), so a transaction accepted just before a
 * crash is lost; and it records the chain tip in the cache only when the mempool is non-empty, so after blocks
 * mined on an empty mempool the cache's tip is stale and the next start wipes every entry ("Mempool tip not
 * consistent"). Both hooks run under the mempool's own lock, as bcoin's own flushes do. And with the leveldown
 * 5.6.0 this project installs (see package.json overrides), bcoin's database layer passes unset range bounds as
 * null, which that leveldown takes as real bounds, so reading the saved entries back finds none. Call before open().
 */
function persistMempoolReliably(mempool: BcoinMempool): void {
  const binding = mempool.cache.db.binding;
  const iterator = binding.iterator.bind(binding);
  binding.iterator = (options) => iterator(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== null && v !== undefined)));
  // Its flush timer reads lastFlush: pinned at 0, every accepted transaction is written at once.
  Object.defineProperty(mempool, 'lastFlush', { get: () => 0, set: () => {} });
  const addBlock = mempool._addBlock.bind(mempool);
  const removeBlock = mempool._removeBlock.bind(mempool);
  mempool._addBlock = async (block, txs) => {
    if (mempool.map.size === 0) {
      mempool.cache.sync(block.hash);
      await mempool.cache.flush();
    }
    return addBlock(block, txs);
  };
  mempool._removeBlock = async (block, txs) => {
    if (mempool.map.size === 0) {
      mempool.cache.sync(block.prevBlock);
      await mempool.cache.flush();
    }
    return removeBlock(block, txs);
  };
}

/** Handle on a running regtest node and its payer wallet. */
export class RegtestNode {
  /** RPC client for the node (retries off so test failures surface at once). */
  readonly rpc: RpcClient;
  /** The payer's p2wpkh scriptPubKey. */
  readonly payerScript: Uint8Array;
  private readonly privateKey: Uint8Array;
  private readonly payerAddress: BcoinAddress;
  // Serialises payer spends so two concurrent payments never pick the same coin.
  private queue: Promise<unknown> = Promise.resolve();
  private readonly nodeErrors: string[] = [];
  /** Coins tracked by scanning blocks, for a persistent node; null when bcoin's address index serves them. */
  private readonly ownCoins: Map<string, BcoinCoin> | null;
  private scannedHeight = 0;
  private mempoolScanned = false;

  constructor(
    private readonly node: BcoinFullNode,
    /** RPC URL with credentials, usable with RpcClient. */
    readonly rpcUrl: string,
    private readonly feeRate: bigint,
    payerKey?: Uint8Array,
    persistent = false,
  ) {
    this.ownCoins = persistent ? new Map() : null;
    this.rpc = new RpcClient({ url: rpcUrl, retries: 0, timeoutMs: 60_000 });
    this.privateKey = payerKey ?? secp256k1.utils.randomSecretKey();
    this.payerScript = p2wpkh(secp256k1.getPublicKey(this.privateKey, true)).script;
    this.payerAddress = bcoin.Address.fromScript(bcoin.Script.fromRaw(Buffer.from(this.payerScript)));
    node.on('error', (err) => this.nodeErrors.push(err.message));
  }

  /**
   * Calls `listener` with each transaction's id as the node accepts it into its mempool (bcoin answers
   * sendrawtransaction before validating: the latency benchmark separates the node's share from satgate's).
   */
  onMempoolTx(listener: (txid: string, raw: Uint8Array) => void): void {
    this.node.mempool.on('tx', (tx) => listener(tx.txid(), tx.toRaw()));
  }

  /** Calls `listener` with each block the node connects: its hash and its transactions' bytes. */
  onBlockConnected(listener: (hash: string, txs: Uint8Array[]) => void): void {
    this.node.chain.on('connect', (entry, block) => listener(entry.rhash(), block.txs.map((tx) => tx.toRaw())));
  }

  /** bcoin's regtest address string for a script (for bcoin RPCs such as generatetoaddress). */
  bcoinAddress(script: Uint8Array): string {
    return bcoin.Address.fromScript(bcoin.Script.fromRaw(Buffer.from(script))).toString('regtest');
  }

  /** Sign and finalize a btc-signer transaction whose inputs are all payer coins. */
  signAsPayer(tx: Transaction): Transaction {
    tx.sign(this.privateKey);
    tx.finalize();
    return tx;
  }

  /** Current best height. */
  async height(): Promise<number> {
    return (await this.rpc.getBlockchainInfo()).blocks;
  }

  /** Mine n blocks paying the payer; returns their hashes. */
  async mine(n: number): Promise<string[]> {
    return this.rpc.call<string[]>('generatetoaddress', [n, this.payerAddress.toString('regtest')]);
  }

  /** Pay `amount` satoshis to any script; the transaction goes to the mempool. */
  async pay(script: Uint8Array, amount: bigint): Promise<Payment> {
    return this.payMany([{ script, amount }]);
  }

  /**
   * Pay several outputs in one transaction (outputs keep the given order; change goes last). `onSent` gets
   * the moment sendrawtransaction returned (the latency benchmark measures from there).
   */
  async payMany(outputs: { script: Uint8Array; amount: bigint }[], onSent?: (at: number) => void): Promise<Payment> {
    return this.serial(async () => {
      const hex = await this.buildPayment(outputs);
      const txid = await this.sendAndWait(hex, 5_000, onSent);
      return { txid, hex, vouts: outputs.map((_, i) => i) };
    });
  }

  /**
   * sendrawtransaction, then wait until the transaction is in the mempool: bcoin answers the
   * call before validating and drops a rejected transaction silently (only logging an error).
   * Only an error naming this transaction (bcoin's "Verification failure: ... hash=<txid>") is its
   * rejection: the node also reports unrelated errors, such as a client's websocket closed by a crash.
   */
  async sendAndWait(hex: string, timeoutMs = 5_000, onSent?: (at: number) => void): Promise<string> {
    const errorsBefore = this.nodeErrors.length;
    const txid = await this.rpc.sendRawTransaction(hex);
    onSent?.(performance.now());
    const rejection = () => this.nodeErrors.slice(errorsBefore).filter((e) => e.includes(txid));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await this.rpc.getRawMempool()).includes(txid)) return txid;
      if (rejection().length > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const reason = rejection().join('; ') || 'timed out';
    throw new Error(`node did not accept ${txid} into its mempool: ${reason}`);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Spendable payer coins (mempool included), confirmed ones first, largest first. */
  private async spendableCoins(): Promise<BcoinCoin[]> {
    const nextHeight = this.node.chain.height + 1;
    const coins = this.ownCoins ? await this.scanOwnCoins() : await this.node.getCoinsByAddress([this.payerAddress]);
    return coins
      .filter((c) => !c.coinbase || (c.height >= 0 && nextHeight - c.height >= COINBASE_MATURITY))
      .sort((a, b) => (a.height < 0 ? 1 : 0) - (b.height < 0 ? 1 : 0) || b.value - a.value);
  }

  /**
   * The payer's coins found by reading the chain itself. bcoin 1.0.2's address index stays empty when its
   * chain lives on disk (LevelDB), so a persistent node (the development chain) tracks its coins this way.
   */
  private async scanOwnCoins(): Promise<BcoinCoin[]> {
    const own = this.ownCoins!;
    const tip = await this.height();
    for (let h = this.scannedHeight + 1; h <= tip; h++) {
      const block = parseBlock(await this.rpc.getRawBlock(await this.rpc.getBlockHash(h)));
      for (const tx of block.txs) this.noteTx(tx, h);
      this.scannedHeight = h;
    }
    if (!this.mempoolScanned) {
      // After a restart the persisted mempool may hold our own unconfirmed spends: apply them once, so the
      // next payment neither double-spends their inputs nor forgets their change.
      this.mempoolScanned = true;
      for (const txid of await this.rpc.getRawMempool()) {
        const raw = await this.rpc.getRawTransaction(txid);
        if (raw) this.noteTx(parseTransaction(raw), -1);
      }
    }
    return [...own.values()];
  }

  /** Applies a transaction to the tracked coins: spends its inputs, adds its outputs to the payer. */
  private noteTx(tx: RawTx, height: number): void {
    const own = this.ownCoins;
    if (!own) return;
    if (!tx.coinbase) for (const i of tx.inputs) own.delete(`${i.prevTxid}:${i.vout}`);
    tx.outputs.forEach((o, index) => {
      if (Buffer.compare(o.script, this.payerScript) !== 0) return;
      const txid = tx.txid;
      own.set(`${txid}:${index}`, { txid: () => txid, index, value: Number(o.value), height, coinbase: tx.coinbase });
    });
  }

  private async buildPayment(outputs: { script: Uint8Array; amount: bigint }[]): Promise<string> {
    const want = outputs.reduce((s, o) => s + o.amount, 0n);
    const outBytes = outputs.reduce((s, o) => s + 9 + o.script.length, 0);
    const chosen: BcoinCoin[] = [];
    let have = 0n;
    let fee = 0n;
    for (const coin of await this.spendableCoins()) {
      chosen.push(coin);
      have += BigInt(coin.value);
      // vsize: overhead 11, p2wpkh input 68, change output 31.
      fee = BigInt(11 + 68 * chosen.length + outBytes + 31) * this.feeRate;
      if (have >= want + fee) break;
    }
    if (have < want + fee) throw new PayerShortError(have, want + fee);
    const tx = new Transaction({ allowUnknownOutputs: true });
    for (const c of chosen) {
      tx.addInput({ txid: c.txid(), index: c.index, witnessUtxo: { script: this.payerScript, amount: BigInt(c.value) } });
    }
    for (const o of outputs) tx.addOutput({ script: o.script, amount: o.amount });
    const change = have - want - fee;
    if (change >= 1000n) tx.addOutput({ script: this.payerScript, amount: change });
    tx.sign(this.privateKey);
    tx.finalize();
    this.noteTx(parseTransaction(tx.extract()), -1);
    return tx.hex;
  }

  /** Build, grind and submit a block holding exactly these transactions (in order) on `parent` (default: tip). */
  async mineBlockWith(txHexes: string[], opts: { parent?: string } = {}): Promise<string> {
    const parentHash = opts.parent ?? (await this.rpc.getBestBlockHash());
    const parent = await this.rpc.getBlockHeader(parentHash);
    const height = parent.height + 1;
    const txs = txHexes.map((h) => parseTransaction(Buffer.from(h, 'hex')));
    const anyWitness = txs.some((t) => t.hasWitness);
    const coinbase = serializeTx(
      coinbaseParts({
        height,
        // Subsidy only: claiming less than subsidy + fees is valid and spares fetching prevouts.
        value: 5_000_000_000n >> BigInt(Math.floor(height / HALVING_INTERVAL)),
        script: this.payerScript,
        witnessCommitment: anyWitness ? witnessCommitment(txs.map(wtxidOf)) : undefined,
        extraNonce: randomBytes(8),
      }),
    );
    const coinbaseTxid = parseTransaction(coinbase).txid;
    const bits = parseInt(parent.bits, 16);
    const header = serializeHeader({
      version: 0x20000000,
      prevHash: parentHash,
      merkleRoot: merkleRoot([coinbaseTxid, ...txs.map((t) => t.txid)]),
      time: Math.max(parent.mediantime + 1, Math.floor(Date.now() / 1000)),
      bits,
      nonce: 0,
    });
    const solved = grindHeader(header, bits);
    const block = serializeBlock(solved, [coinbase, ...txs.map((t) => t.bytes)]);
    const result = await this.rpc.call<string | null>('submitblock', [Buffer.from(block).toString('hex')]);
    if (result !== null) throw new Error(`node rejected block: ${result}`);
    return toDisplayHex(hash256(solved));
  }

  /**
   * Replace a payer transaction still in the mempool the way a miner would: mine a block with a
   * conflicting transaction that spends the same inputs back to the payer.
   */
  async replaceWithConflict(originalTxid: string): Promise<{ txid: string; hex: string; blockHash: string }> {
    return this.serial(async () => {
      const raw = await this.rpc.getRawTransaction(originalTxid);
      if (!raw) throw new Error(`unknown transaction ${originalTxid}`);
      const original = parseTransaction(raw);
      const mempool = new Set(await this.rpc.getRawMempool());
      if (!mempool.has(originalTxid)) throw new Error(`${originalTxid} is not in the mempool`);
      const tx = new Transaction();
      let total = 0n;
      const ancestors: string[] = [];
      for (const input of original.inputs) {
        const prevRaw = await this.rpc.getRawTransaction(input.prevTxid);
        if (!prevRaw) throw new Error(`cannot find input ${input.prevTxid}`);
        const prevOut = parseTransaction(prevRaw).outputs[input.vout];
        if (!prevOut || Buffer.compare(prevOut.script, this.payerScript) !== 0) {
          throw new Error('can only conflict transactions that spend payer coins');
        }
        total += prevOut.value;
        tx.addInput({ txid: input.prevTxid, index: input.vout, witnessUtxo: { script: this.payerScript, amount: prevOut.value } });
        if (!(await this.chainHasCoin(input.prevTxid, input.vout))) await this.collectMempoolAncestors(input.prevTxid, mempool, ancestors);
      }
      const fee = BigInt(11 + 68 * original.inputs.length + 31) * this.feeRate;
      tx.addOutput({ script: this.payerScript, amount: total - fee });
      tx.sign(this.privateKey);
      tx.finalize();
      const blockHash = await this.mineBlockWith([...ancestors, tx.hex]);
      return { txid: tx.id, hex: tx.hex, blockHash };
    });
  }

  /** Whether the output is an unspent output of the chain itself (the mempool not consulted). */
  async chainHasCoin(txid: string, vout: number): Promise<boolean> {
    return (await this.rpc.call<unknown>('gettxout', [txid, vout, false])) !== null;
  }

  /**
   * Unconfirmed ancestors of txid (txid included), parents before children. A parent whose output is already an
   * unspent chain output is not followed: bcoin 1.0.2's mempool can still list a transaction a block confirmed
   * while it was validating it, and a block holding it again is refused (bad-txns-BIP30).
   */
  private async collectMempoolAncestors(txid: string, mempool: Set<string>, out: string[]): Promise<void> {
    if (!mempool.has(txid)) return;
    const raw = await this.rpc.getRawTransaction(txid);
    if (!raw) return;
    for (const input of parseTransaction(raw).inputs) {
      if (!(await this.chainHasCoin(input.prevTxid, input.vout))) await this.collectMempoolAncestors(input.prevTxid, mempool, out);
    }
    const hex = Buffer.from(raw).toString('hex');
    if (!out.includes(hex)) out.push(hex);
  }

  /**
   * Replace the top `depth` blocks with a branch of `newLength` blocks (default depth + 1), the
   * first holding `include`. Method 'fork' (default) mines a competing branch the node switches to,
   * as on the real network, and orphaned transactions return to the mempool as Core does them
   * (re-sent here: bcoin skips that when its mempool happens to be empty). Method 'invalidate'
   * calls `invalidateblock` first; bcoin then rewinds without returning the invalidated blocks'
   * transactions to its mempool, so they vanish unless `include`d. Returns the new hashes.
   */
  async reorg(
    depth: number,
    newLength = depth + 1,
    opts: { include?: string[]; method?: 'fork' | 'invalidate' } = {},
  ): Promise<string[]> {
    if (depth < 1 || newLength < 1) throw new Error('depth and newLength must be positive');
    const tip = await this.height();
    if (depth > tip) throw new Error(`cannot reorg ${depth} blocks on a chain of height ${tip}`);
    const include = opts.include ?? [];
    const orphaned: RawTx[] = [];
    if (opts.method !== 'invalidate') {
      for (let h = tip - depth + 1; h <= tip; h++) {
        orphaned.push(...parseBlock(await this.rpc.getRawBlock(await this.rpc.getBlockHash(h))).txs.slice(1));
      }
    } else {
      await this.rpc.call('invalidateblock', [await this.rpc.getBlockHash(tip - depth + 1)]);
    }
    let parent = await this.rpc.getBlockHash(tip - depth);
    const hashes: string[] = [];
    for (let i = 0; i < newLength; i++) {
      parent = await this.mineBlockWith(i === 0 ? include : [], { parent });
      hashes.push(parent);
    }
    if (newLength > depth) await this.resubmit(orphaned, new Set(include.map((h) => parseTransaction(Buffer.from(h, 'hex')).txid)));
    return hashes;
  }

  /** Put orphaned transactions back in the mempool unless the new branch holds or conflicts them. */
  private async resubmit(txs: RawTx[], inBranch: Set<string>): Promise<void> {
    const mempool = new Set(await this.rpc.getRawMempool());
    for (const tx of txs) {
      if (inBranch.has(tx.txid) || mempool.has(tx.txid)) continue;
      await this.sendAndWait(Buffer.from(tx.bytes).toString('hex'), 1_000).catch(() => undefined);
    }
  }

  /** Stop the node and its HTTP server. */
  async stop(): Promise<void> {
    await this.node.close();
  }
}
