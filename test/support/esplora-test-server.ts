// A small Esplora HTTP API (Blockstream/esplora API.md) over a real bcoin regtest node, for tests:
// blocks, headers, heights, script-hash histories with paging (25 confirmed per page, up to 50 mempool),
// transactions (`/tx/:txid` 404s once a transaction is gone; `/tx/:txid/status` never does), Merkle
// proofs, whole blocks (`/block/:hash/raw`) and their paged transactions (`/block/:hash/txs/:start`), broadcast and fee estimates. It can lie and throttle with HTTP 429 (see light-lies.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RegtestNode } from './regtest-node.ts';
import { LightChainIndex, scriptSha, type IndexedTx } from './light-chain-index.ts';
import { headerFailingPow, phantomTx, ServerThrottle, type LieSettings } from './light-lies.ts';
import { merkleBranch } from '../../src/chain/light/merkle-proof.ts';
import type { RawTx } from '../../src/bitcoin/raw-tx.ts';
import { parseBlockHeader } from '../../src/bitcoin/raw-block.ts';
import { esploraTxJson } from './esplora-tx-json.ts';
import { attachMempoolSocket, type MempoolSocketServer } from './mempool-ws-test-server.ts';

export interface EsploraTestServer {
  /** The API root, e.g. `http://127.0.0.1:port/api`. */
  url: string;
  lies: LieSettings;
  throttle: ServerThrottle;
  /** Request paths, in order, for assertions. */
  paths: string[];
  /** When each of `paths` arrived (performance.now()), for benchmarks' breakdowns. */
  arrivals: number[];
  /** mempool.space's websocket at `/api/v1/ws` (see mempool-ws-test-server.ts). */
  ws: MempoolSocketServer;
  close(): Promise<void>;
}

export interface EsploraTestServerOptions {
  /** The websocket's address cap (default 100). */
  maxTrackedAddresses?: number;
  /** How often the websocket looks at the chain for news (default 100 ms). */
  wsPollMs?: number;
  /** Every answer waits this long first, as a distant public server's round trip does (default 0). */
  latencyMs?: number;
}

export async function startEsploraTestServer(node: RegtestNode, options: EsploraTestServerOptions = {}): Promise<EsploraTestServer> {
  const index = new LightChainIndex(node.rpc);
  await index.refresh();
  const lies: LieSettings = {};
  const throttle = new ServerThrottle();
  const paths: string[] = [];
  const arrivals: number[] = [];
  const phantoms = new Map<string, { tx: RawTx; kind: 'phantom' | 'badpow' }>();
  const phantomFor = (kind: 'phantom' | 'badpow', script: Uint8Array, value: bigint): RawTx => {
    for (const p of phantoms.values()) if (p.kind === kind && Buffer.compare(p.tx.outputs[0]!.script, script) === 0) return p.tx;
    const tx = phantomTx(script, value);
    phantoms.set(tx.txid, { tx, kind });
    return tx;
  };
  const fakeHeader = (): Uint8Array | null => {
    if (!lies.badPowBlock) return null;
    const tip = index.block(index.tipHeight())!;
    return headerFailingPow(tip.hash, phantomFor('badpow', lies.badPowBlock.script, lies.badPowBlock.value).txid, tip.time + 1, tip.bits);
  };
  const claimedTip = () => index.tipHeight() + (lies.badPowBlock ? 1 : 0);

  interface HeaderView {
    hash: string;
    height: number;
    raw: Uint8Array;
  }
  const headerAt = (h: number): HeaderView | undefined => {
    if (h === index.tipHeight() + 1) {
      const raw = fakeHeader();
      return raw ? { hash: parseBlockHeader(raw).hash, height: h, raw } : undefined;
    }
    const b = index.block(h);
    return b ? { hash: b.hash, height: h, raw: b.header } : undefined;
  };
  const headerByHash = (hash: string): HeaderView | undefined => {
    const b = index.block(hash);
    if (b) return { hash: b.hash, height: b.height, raw: b.header };
    const fake = headerAt(index.tipHeight() + 1);
    return fake && fake.hash === hash ? fake : undefined;
  };

  const blockJson = (v: HeaderView) => {
    const h = parseBlockHeader(v.raw);
    const real = index.block(v.hash);
    return {
      id: v.hash,
      height: v.height,
      version: h.version,
      timestamp: h.time,
      tx_count: real?.txids.length ?? 1,
      size: real?.size ?? 0,
      weight: (real?.size ?? 0) * 4,
      merkle_root: h.merkleRoot,
      previousblockhash: v.height > 0 ? h.prevHash : null,
      mediantime: real ? index.medianTime(v.height) : h.time,
      nonce: h.nonce,
      bits: h.bits,
      difficulty: 0,
    };
  };

  /** Where a transaction is, as this server claims it (lies included). */
  const claim = (txid: string): { tx: RawTx; height: number; blockHash: string | null; proof?: { merkle: string[]; pos: number } } | undefined => {
    const phantom = phantoms.get(txid);
    if (phantom?.kind === 'phantom') {
      const tip = index.block(index.tipHeight())!;
      return { tx: phantom.tx, height: tip.height, blockHash: tip.hash, proof: { merkle: merkleBranch(tip.txids, 0), pos: 0 } };
    }
    if (phantom?.kind === 'badpow') {
      const fake = headerAt(index.tipHeight() + 1);
      return fake ? { tx: phantom.tx, height: fake.height, blockHash: fake.hash, proof: { merkle: [], pos: 0 } } : undefined;
    }
    const t: IndexedTx | undefined = index.tx(txid);
    if (!t) return undefined;
    if (lies.hiddenReorg && t.height <= 0) {
      const o = index.orphaned.get(txid);
      if (o) return { tx: t.tx, height: o.height, blockHash: index.block(o.height)?.hash ?? null, proof: { merkle: merkleBranch(o.blockTxids, o.pos), pos: o.pos } };
    }
    if (t.height > 0) {
      const block = index.block(t.height)!;
      const pos = lies.proofForAnotherTx && block.txids.length > 1 ? (t.pos === 0 ? 1 : 0) : t.pos;
      return { tx: t.tx, height: t.height, blockHash: t.blockHash, proof: { merkle: merkleBranch(block.txids, pos), pos } };
    }
    return { tx: t.tx, height: 0, blockHash: null };
  };

  const txJson = (txid: string) => {
    const c = claim(txid)!;
    const tx = c.tx;
    // Every field of the serialization (a block's pages are rebuilt from them), with each input's prevout.
    const full = esploraTxJson(tx.bytes);
    return {
      txid,
      version: full.version,
      locktime: full.locktime,
      vin: full.vin.map((i) => {
        const prev = tx.coinbase ? undefined : index.output(i.txid, i.vout);
        return { ...i, prevout: prev ? { scriptpubkey: Buffer.from(prev.script).toString('hex'), value: Number(prev.value) } : null };
      }),
      vout: full.vout,
      size: full.size,
      weight: full.weight,
      fee: tx.coinbase ? 0 : Number(index.fee(tx)),
      status:
        c.height > 0
          ? { confirmed: true, block_height: c.height, block_hash: c.blockHash, block_time: index.block(c.height)?.time ?? 0 }
          : { confirmed: false },
    };
  };

  /** A script's transactions as Esplora lists them: mempool first (newest first), then confirmed newest first. */
  const scriptTxs = (sha: string): { mempool: string[]; chain: string[] } => {
    if (lies.hideHistoryOf && scriptSha(lies.hideHistoryOf) === sha) return { mempool: [], chain: [] };
    const items = index.history(sha).map((i) => ({ txid: i.txid, height: i.height }));
    const add = (txid: string) => {
      const c = claim(txid);
      if (!c) return;
      const at = items.findIndex((i) => i.txid === txid);
      if (at >= 0) items.splice(at, 1);
      items.push({ txid, height: c.height });
    };
    if (lies.phantomPayment && scriptSha(lies.phantomPayment.script) === sha) add(phantomFor('phantom', lies.phantomPayment.script, lies.phantomPayment.value).txid);
    if (lies.badPowBlock && scriptSha(lies.badPowBlock.script) === sha) add(phantomFor('badpow', lies.badPowBlock.script, lies.badPowBlock.value).txid);
    if (lies.hiddenReorg) for (const txid of index.orphaned.keys()) if (items.some((i) => i.txid === txid)) add(txid);
    const chain = items.filter((i) => i.height > 0).sort((a, b) => b.height - a.height).map((i) => i.txid);
    const mempool = items.filter((i) => i.height <= 0).map((i) => i.txid).reverse();
    return { mempool, chain };
  };

  async function route(req: IncomingMessage, path: string): Promise<{ status: number; body: string | object | Buffer }> {
    await index.refresh();
    const m = (re: RegExp) => re.exec(path);
    let r: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/tx') {
      const body = await new Promise<string>((resolve) => {
        let s = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (s += c));
        req.on('end', () => resolve(s));
      });
      try {
        const txid = await node.sendAndWait(body.trim());
        await index.refresh();
        return { status: 200, body: txid };
      } catch (err) {
        return { status: 400, body: `sendrawtransaction RPC error: ${(err as Error).message}` };
      }
    }
    if (req.method !== 'GET') return { status: 405, body: 'Method Not Allowed' };
    if (path === '/blocks/tip/height') return { status: 200, body: String(claimedTip()) };
    if (path === '/blocks/tip/hash') return { status: 200, body: headerAt(claimedTip())!.hash };
    if ((r = m(/^\/blocks(?:\/(\d+))?$/))) {
      const start = r[1] === undefined ? claimedTip() : Math.min(Number(r[1]), claimedTip());
      const out = [];
      for (let h = start; h >= 0 && h > start - 10; h--) out.push(blockJson(headerAt(h)!));
      return { status: 200, body: out };
    }
    if ((r = m(/^\/block-height\/(\d+)$/))) {
      const v = headerAt(Number(r[1]));
      return v ? { status: 200, body: v.hash } : { status: 404, body: 'Block not found' };
    }
    if ((r = m(/^\/block\/([0-9a-f]{64})\/raw$/))) {
      // Esplora's whole block, as bytes. `noRawBlocks`: a server without the route; `tamperBlocks`: the last
      // transaction's last byte changed (its txid, and so the Merkle root, no longer match the header).
      const b = index.block(r[1]!);
      if (!b || lies.noRawBlocks) return { status: 404, body: 'Block not found' };
      const raw = Buffer.from(await node.rpc.getRawBlock(b.hash));
      if (lies.tamperBlocks) raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
      return { status: 200, body: raw };
    }
    if ((r = m(/^\/block\/([0-9a-f]{64})\/txs(?:\/(\d+))?$/))) {
      // A block's transactions, 25 a page from a start index that is a multiple of 25 (esplora's
      // CHAIN_TXS_PER_PAGE). `noBlockPages`: a server without the route; `tamperBlockPages`: the block's last
      // transaction shows its first output worth 1,000 sats more than it is.
      const b = index.block(r[1]!);
      if (!b || lies.noBlockPages) return { status: 404, body: 'Block not found' };
      const start = Number(r[2] ?? 0);
      if (start % 25 !== 0) return { status: 400, body: 'start index must be a multipication of 25' };
      if (start >= b.txids.length) return { status: 404, body: 'start index out of range' };
      const page = b.txids.slice(start, start + 25).map((txid) => txJson(txid));
      if (lies.tamperBlockPages && start + page.length === b.txids.length) {
        const last = page[page.length - 1]!;
        last.vout = last.vout.map((o, n) => (n === 0 ? { ...o, value: o.value + 1000 } : o));
      }
      return { status: 200, body: page };
    }
    if ((r = m(/^\/block\/([0-9a-f]{64})(\/header|\/status|\/txids)?$/))) {
      const v = headerByHash(r[1]!);
      if (!v) return { status: 404, body: 'Block not found' };
      if (r[2] === '/header') return { status: 200, body: Buffer.from(v.raw).toString('hex') };
      if (r[2] === '/status') return { status: 200, body: { in_best_chain: true, height: v.height, next_best: index.block(v.height + 1)?.hash ?? null } };
      if (r[2] === '/txids') return { status: 200, body: index.block(v.hash)?.txids ?? [] };
      return { status: 200, body: blockJson(v) };
    }
    if ((r = m(/^\/scripthash\/([0-9a-f]{64})\/txs(?:\/(mempool)|\/chain(?:\/([0-9a-f]{64}))?)?$/))) {
      const { mempool, chain } = scriptTxs(r[1]!);
      if (r[2] === 'mempool') return { status: 200, body: mempool.slice(0, 50).map(txJson) };
      if (path.includes('/txs/chain')) {
        const after = r[3] ? chain.indexOf(r[3]) + 1 : 0;
        return { status: 200, body: chain.slice(after, after + 25).map(txJson) };
      }
      const shownMempool = mempool.slice(0, 50).map((txid) => {
        const json = txJson(txid);
        if (!lies.tamperHistoryTxs) return json;
        const [first, ...rest] = json.vout as { value: number }[];
        return { ...json, vout: [{ ...first!, value: first!.value + 1_000 }, ...rest] };
      });
      return { status: 200, body: [...shownMempool, ...chain.slice(0, 25).map(txJson)] };
    }
    if ((r = m(/^\/scripthash\/([0-9a-f]{64})\/utxo$/))) {
      return {
        status: 200,
        body: index.unspent(r[1]!).map((u) => ({
          txid: u.txid,
          vout: u.vout,
          value: Number(u.value),
          status: u.height > 0 ? { confirmed: true, block_height: u.height, block_hash: index.block(u.height)!.hash } : { confirmed: false },
        })),
      };
    }
    if ((r = m(/^\/tx\/([0-9a-f]{64})(\/hex|\/status|\/merkle-proof)?$/))) {
      const txid = r[1]!;
      const c = claim(txid);
      if (r[2] === '/status') {
        // Never 404: an unknown transaction is simply "not confirmed".
        return { status: 200, body: txJson(txid).status ?? { confirmed: false } };
      }
      if (!c) return { status: 404, body: 'Transaction not found' };
      if (r[2] === '/hex') return { status: 200, body: Buffer.from(c.tx.bytes).toString('hex') };
      if (r[2] === '/merkle-proof') {
        if (c.height <= 0 || !c.proof) return { status: 404, body: 'Transaction not found' };
        return { status: 200, body: { block_height: c.height, merkle: c.proof.merkle, pos: c.proof.pos } };
      }
      return { status: 200, body: txJson(txid) };
    }
    if (path === '/fee-estimates') {
      const out: Record<string, number> = {};
      for (const n of [1, 2, 3, 6, 144]) {
        const fee = await node.rpc.call<{ fee?: number; feerate?: number }>('estimatesmartfee', [n]).catch(() => ({ fee: -1, feerate: undefined }));
        const rate = fee.feerate ?? fee.fee;
        out[String(n)] = typeof rate === 'number' && rate > 0 ? rate * 100_000 : 1;
      }
      return { status: 200, body: out };
    }
    return { status: 404, body: 'Not Found' };
  }

  const server = createServer((req, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api/, '');
    paths.push(path);
    arrivals.push(performance.now());
    if (!throttle.admit()) {
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '1' }).end('Too Many Requests');
      return;
    }
    const answer = options.latencyMs ? new Promise((r) => setTimeout(r, options.latencyMs)).then(() => route(req, path)) : route(req, path);
    answer.then(
      ({ status, body }) => {
        if (Buffer.isBuffer(body)) {
          res.writeHead(status, { 'content-type': 'application/octet-stream' }).end(body);
          return;
        }
        const json = typeof body !== 'string';
        res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/plain' }).end(json ? JSON.stringify(body) : body);
      },
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const ws = attachMempoolSocket(server, `http://127.0.0.1:${addr.port}`, index, txJson, (h) => blockJson(headerAt(h)!), {
    maxTrackedAddresses: options.maxTrackedAddresses,
    pollMs: options.wsPollMs,
  });
  return {
    url: `http://127.0.0.1:${addr.port}/api`,
    lies,
    throttle,
    paths,
    arrivals,
    ws,
    close: async () => {
      await ws.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
  };
}
