// The light watcher's questions asked of an Esplora HTTP API (Blockstream's esplora, mempool.space).
// Esplora's script hash is the SHA-256 not reversed; `/tx/:txid/status` never answers 404, so a vanished
// transaction is found by `/tx/:txid`.
import type { EsploraSourceEndpoint } from '../../config/chain-endpoint.ts';
import type { SourceKind } from '../source-kind.ts';
import { BackendUnavailableError, type LightBackend, type MerkleProof } from './light-backend.ts';
import { blockBytes, blockTxCount, ESPLORA_BLOCK_PAGE, pageTransactions, txBytesFromEsploraJson } from './esplora-block-pages.ts';
import { budgetShare, lightBackend, openLight } from './light-source.ts';
import { MempoolSocket } from './mempool-socket.ts';
import { RequestBudget, type BudgetOptions } from './request-budget.ts';
import { esploraScriptHash, orderMempoolEntries, type HistoryEntry } from './script-hash.ts';

export interface EsploraOptions {
  /** The API root, e.g. `https://mempool.space/api`. */
  url: string;
  timeoutMs?: number;
  budget?: RequestBudget | BudgetOptions;
  /** Tip polls no more often than this (Esplora caches its tip for 10 s). */
  tipCacheMs?: number;
  /** A SOCKS5 proxy is not supported for Esplora by fetch; see docs/decisions.md. */
  now?: () => number;
}

class NotFound extends Error {}

interface EsploraBlock {
  height: number;
  version: number;
  previousblockhash: string | null;
  merkle_root: string;
  timestamp: number;
  bits: number;
  nonce: number;
}

function headerFromJson(b: EsploraBlock): Uint8Array {
  const u32 = (n: unknown) => {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < -0x80000000 || n > 0xffffffff) throw new BackendUnavailableError('server sent a malformed block');
    return n;
  };
  const hash = (h: unknown) => {
    if (typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h)) throw new BackendUnavailableError('server sent a malformed block');
    return Buffer.from(h, 'hex').reverse();
  };
  const out = Buffer.alloc(80);
  out.writeInt32LE(u32(b.version) | 0, 0);
  (b.previousblockhash === null && b.height === 0 ? Buffer.alloc(32) : hash(b.previousblockhash)).copy(out, 4);
  hash(b.merkle_root).copy(out, 36);
  out.writeUInt32LE(u32(b.timestamp), 68);
  out.writeUInt32LE(u32(b.bits), 72);
  out.writeUInt32LE(u32(b.nonce), 76);
  return new Uint8Array(out);
}

interface EsploraTx {
  txid: string;
  status?: { confirmed?: boolean; block_height?: number };
}

/** Unconfirmed transactions kept from history answers until asked for (a few hundred bytes each). */
const LISTED_TXS_KEPT = 1_000;

export class EsploraBackend implements LightBackend {
  readonly kind = 'esplora' as const;
  readonly budgetKeeper: RequestBudget;
  private readonly root: string;
  private tipCache: { height: number; hash: string; at: number } | null = null;
  /** `/block/:hash/raw` answered 404 for a block the paged route knows: the server serves no raw blocks. */
  private rawMissing = false;
  /**
   * Unconfirmed transactions' bytes rebuilt from the history answer that listed them (its JSON carries every
   * field of the serialization), taken once by rawTransaction: a payment is recorded one round trip sooner and
   * one request cheaper. The watcher checks them like fetched bytes (the txid is their hash).
   */
  private readonly listedTxs = new Map<string, Uint8Array>();

  constructor(private readonly opts: EsploraOptions) {
    this.root = opts.url.replace(/\/+$/, '');
    this.budgetKeeper = opts.budget instanceof RequestBudget ? opts.budget : new RequestBudget(opts.budget);
  }

  get url(): string {
    const u = new URL(this.root);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/+$/, '');
  }

  onPush(): void {
    // Plain Esplora has no push; polling is the only path.
  }

  /** One GET (or POST) within the budget; retries after a 429/5xx or a connection failure, with backoff. */
  private async fetchText(path: string, init?: { method: 'POST'; body: string }): Promise<string> {
    return (await this.fetchBody(path, init)).toString('utf8');
  }

  private async fetchBody(path: string, init?: { method: 'POST'; body: string }): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      await this.budgetKeeper.take();
      let res: Response;
      try {
        res = await fetch(this.root + path, {
          method: init?.method ?? 'GET',
          ...(init ? { body: init.body, headers: { 'content-type': 'text/plain' } } : {}),
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
        });
      } catch (err) {
        this.budgetKeeper.refused();
        if (attempt >= 3) throw new BackendUnavailableError(`cannot reach ${this.url}: ${(err as Error).message}`);
        continue;
      }
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status === 429 || res.status >= 500) {
        const retryAfter = Number(res.headers.get('retry-after'));
        this.budgetKeeper.refused(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
        if (attempt >= 3) throw new BackendUnavailableError(`${path}: HTTP ${res.status}`);
        continue;
      }
      this.budgetKeeper.succeeded();
      if (res.status === 404) throw new NotFound(path);
      if (!res.ok) throw new BackendUnavailableError(`${path}: HTTP ${res.status} ${body.subarray(0, 200).toString('utf8')}`);
      return body;
    }
  }

  private async json<T>(path: string): Promise<T> {
    const text = await this.fetchText(path);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new BackendUnavailableError(`${path}: not JSON`);
    }
  }

  async tipHeight(): Promise<number> {
    const now = (this.opts.now ?? Date.now)();
    if (this.tipCache && now - this.tipCache.at < (this.opts.tipCacheMs ?? 10_000)) return this.tipCache.height;
    // The tip's hash first: unchanged (the usual answer between blocks), it is the one request of a poll at rest,
    // and the header chain need not be asked again (header-sync.ts). Its height only when it moved.
    const hash = (await this.fetchText('/blocks/tip/hash')).trim();
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new BackendUnavailableError('server sent a malformed tip hash');
    if (this.tipCache?.hash === hash) {
      this.tipCache = { ...this.tipCache, at: now };
      return this.tipCache.height;
    }
    const text = (await this.fetchText('/blocks/tip/height')).trim();
    if (!/^\d+$/.test(text)) throw new BackendUnavailableError('server sent a malformed tip height');
    this.tipCache = { height: Number(text), hash, at: now };
    return this.tipCache.height;
  }

  /** The tip's hash as the last tip answer gave it (a claim: the header chain decides). */
  tipHash(): string | null {
    return this.tipCache?.hash ?? null;
  }

  /**
   * A whole block's bytes: `/block/:hash/raw`, or, where the server serves no raw blocks, rebuilt from its
   * paged transactions (esplora-block-pages.ts; one request per 25 transactions). Null when neither route
   * knows the block (404): a block reorganised away, or a server with neither route.
   */
  async rawBlock(hash: string): Promise<Uint8Array | null> {
    if (!this.rawMissing) {
      try {
        return new Uint8Array(await this.fetchBody(`/block/${hash}/raw`));
      } catch (err) {
        if (!(err instanceof NotFound)) throw err;
      }
    }
    const paged = await this.pagedBlock(hash);
    // Only a block the pages know says the raw route itself is missing (a reorganised block 404s on both);
    // from then on blocks go straight to the pages, without a 404 each.
    if (paged !== null && !this.rawMissing) this.rawMissing = true;
    return paged;
  }

  /** How whole blocks come from this server, as far as it has been asked: 'raw', or 'pages' once /raw 404'd. */
  blockRoute(): 'raw' | 'pages' {
    return this.rawMissing ? 'pages' : 'raw';
  }

  private async pagedBlock(hash: string): Promise<Uint8Array | null> {
    try {
      // `/block/:hash` carries every header field and the transaction count in one answer; the header is
      // rebuilt from it and block-scan.ts checks it hashes to the verified header.
      const info = await this.json<EsploraBlock & { tx_count?: unknown }>(`/block/${hash}`);
      if (typeof info !== 'object' || info === null) throw new BackendUnavailableError('server sent a malformed block');
      const header = headerFromJson(info);
      const count = blockTxCount(info);
      const txs: Buffer[] = [];
      for (let start = 0; start < count; start += ESPLORA_BLOCK_PAGE) {
        const page = pageTransactions(await this.json<unknown>(`/block/${hash}/txs/${start}`), start, count);
        for (const tx of page) txs.push(txBytesFromEsploraJson(tx));
      }
      return blockBytes(header, txs);
    } catch (err) {
      if (err instanceof NotFound) return null;
      throw err;
    }
  }

  /** Forgets the cached tip (tests and a push from a websocket make the next poll ask). */
  refreshTip(): void {
    this.tipCache = null;
  }

  async headers(start: number, count: number): Promise<Uint8Array[]> {
    // `/blocks/:height` lists ten blocks downwards from a height with every header field; the header is
    // rebuilt from them and hashed here, so a field the server changed only makes a header that fails.
    const tip = await this.tipHeight();
    const last = Math.min(start + count - 1, tip);
    const out: Uint8Array[] = [];
    for (let top = last; top >= start; ) {
      const page = await this.json<EsploraBlock[]>(`/blocks/${top}`);
      if (!Array.isArray(page) || page.length === 0) throw new BackendUnavailableError('server sent no blocks');
      for (const b of page) {
        if (b?.height !== top) throw new BackendUnavailableError('server sent blocks out of order');
        if (top < start) break;
        out.push(headerFromJson(b));
        top--;
      }
    }
    return out.reverse();
  }

  async history(script: Uint8Array): Promise<{ status: string | null; entries: HistoryEntry[] }> {
    const sh = esploraScriptHash(script);
    // First page: up to 50 mempool transactions and the newest 25 confirmed; then confirmed pages of 25.
    const first = await this.json<EsploraTx[]>(`/scripthash/${sh}/txs`);
    if (!Array.isArray(first)) throw new BackendUnavailableError('server sent a malformed history');
    const all = [...first];
    let confirmed = first.filter((t) => t.status?.confirmed);
    while (confirmed.length >= 25) {
      const page = await this.json<EsploraTx[]>(`/scripthash/${sh}/txs/chain/${confirmed[confirmed.length - 1]!.txid}`);
      if (!Array.isArray(page) || page.length === 0) break;
      all.push(...page);
      confirmed = page;
    }
    const mined: HistoryEntry[] = [];
    const waiting: HistoryEntry[] = [];
    for (const t of all) {
      if (typeof t?.txid !== 'string' || !/^[0-9a-f]{64}$/.test(t.txid)) throw new BackendUnavailableError('server sent a malformed history entry');
      if (t.status?.confirmed) {
        if (typeof t.status.block_height !== 'number') throw new BackendUnavailableError('server sent a malformed history entry');
        mined.push({ txid: t.txid, height: t.status.block_height });
      } else {
        waiting.push({ txid: t.txid, height: 0 });
        this.keepListed(t);
      }
    }
    // Esplora lists newest first; the watcher wants block order (funding before spending).
    mined.reverse().sort((a, b) => a.height - b.height);
    return { status: null, entries: [...mined, ...orderMempoolEntries(waiting)] };
  }

  /** A listed transaction's bytes, when its JSON rebuilds; one that does not is simply fetched. */
  private keepListed(t: EsploraTx): void {
    if (this.listedTxs.has(t.txid)) return;
    try {
      const raw = txBytesFromEsploraJson(t);
      // Bounded: entries not asked for (known already) would otherwise stay; the newest are the likely ones.
      if (this.listedTxs.size >= LISTED_TXS_KEPT) this.listedTxs.delete(this.listedTxs.keys().next().value!);
      this.listedTxs.set(t.txid, new Uint8Array(raw));
    } catch {
      // Fields missing or odd: the transaction is fetched with /tx/:txid/hex instead.
    }
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    const listed = this.listedTxs.get(txid);
    if (listed) {
      this.listedTxs.delete(txid);
      return listed;
    }
    try {
      const hex = (await this.fetchText(`/tx/${txid}/hex`)).trim();
      if (!/^([0-9a-f]{2})+$/.test(hex)) throw new BackendUnavailableError('server sent a malformed transaction');
      return new Uint8Array(Buffer.from(hex, 'hex'));
    } catch (err) {
      if (err instanceof NotFound) return null;
      throw err;
    }
  }

  async merkleProof(txid: string): Promise<MerkleProof> {
    const r = await this.json<{ block_height?: unknown; merkle?: unknown; pos?: unknown }>(`/tx/${txid}/merkle-proof`).catch((err) => {
      if (err instanceof NotFound) throw new BackendUnavailableError(`no Merkle proof for ${txid}`);
      throw err;
    });
    if (typeof r?.block_height !== 'number' || !Array.isArray(r.merkle) || typeof r.pos !== 'number' || !r.merkle.every((m) => typeof m === 'string')) {
      throw new BackendUnavailableError('server sent a malformed Merkle proof');
    }
    return { height: r.block_height, branch: r.merkle as string[], pos: r.pos };
  }

  async broadcast(raw: Uint8Array): Promise<string> {
    return (await this.fetchText('/tx', { method: 'POST', body: Buffer.from(raw).toString('hex') })).trim();
  }

  async estimateFee(blocks: number): Promise<bigint | null> {
    // { "<blocks>": sat/vB as a JSON number }; the nearest target at or above the one asked.
    const r = await this.json<Record<string, number>>('/fee-estimates');
    const targets = Object.keys(r).map(Number).filter((n) => Number.isInteger(n) && n >= blocks).sort((a, b) => a - b);
    const rate = targets.length > 0 ? r[String(targets[0])] : undefined;
    if (typeof rate !== 'number' || !(rate > 0)) return null;
    // Rounded up to a whole sat/vB from the decimal the server wrote, never through float arithmetic.
    const m = /^(\d+)(?:\.(\d+))?$/.exec(String(rate));
    if (!m) return null;
    return BigInt(m[1]!) + (m[2] && /[1-9]/.test(m[2]) ? 1n : 0n) || 1n;
  }

  budget() {
    return this.budgetKeeper.stats();
  }

  connected(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}

/** The Esplora source kind (chain/sources.ts), with mempool.space's websocket beside it when its URL is set. */
export const esploraSource: SourceKind<EsploraSourceEndpoint> = {
  urlField: 'esploraUrl',
  open(endpoint, deps) {
    if (endpoint.proxy) throw new Error('SATGATE_PROXY is supported for Electrum servers only (see docs/decisions.md)');
    const urls = [endpoint.esploraUrl, ...(endpoint.extraServers ?? [])];
    const backend = lightBackend(
      urls.map((url) => new EsploraBackend({ url, budget: budgetShare(endpoint.budget, urls.length), tipCacheMs: endpoint.tipCacheMs })),
      deps,
      endpoint.quorum,
    );
    const push = endpoint.esploraWsUrl
      ? new MempoolSocket({
          url: endpoint.esploraWsUrl,
          maxAddresses: endpoint.wsMaxAddresses ?? 100,
          log: deps.log,
          backoffMs: endpoint.wsBackoffMs,
          maxBackoffMs: endpoint.wsMaxBackoffMs,
        })
      : undefined;
    return openLight(backend, deps, { warmEvery: endpoint.warmEvery, coldPerPoll: endpoint.coldPerPoll, hotEveryMs: endpoint.hotEveryMs, push, pushTrackMs: endpoint.pushTrackMs });
  },
};
