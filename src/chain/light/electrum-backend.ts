// The light watcher's questions asked over the Electrum protocol, and the Electrum source kind.
import type { ElectrumSourceEndpoint } from '../../config/chain-endpoint.ts';
import { btcJsonToSats } from '../rpc-client.ts';
import type { SourceKind } from '../source-kind.ts';
import { budgetShare, lightBackend, openLight } from './light-source.ts';
import { parseElectrumUrl } from './electrum-client.ts';
import { parseProxyUrl } from './socks-proxy.ts';
import { BackendUnavailableError, type HistoryAnswer, type HistoryOptions, type LightBackend, type MerkleProof } from './light-backend.ts';
import { ElectrumClient, ElectrumError, type ElectrumClientOptions } from './electrum-client.ts';
import { electrumScriptHash, electrumStatus, type HistoryEntry } from './script-hash.ts';

/**
 * Script subscriptions kept per server at most, by default: below Fulcrum's and ElectrumX's default of 50,000 a
 * session (SATGATE_LIGHT_MAX_SUBSCRIPTIONS). Beyond it, hot addresses keep subscriptions and the rest are polled.
 */
export const DEFAULT_MAX_SUBSCRIPTIONS = 20_000;

const SCRIPT_SUBSCRIBE = 'blockchain.scripthash.subscribe';

function bytes(hex: unknown, what: string): Uint8Array {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(hex)) throw new BackendUnavailableError(`server sent malformed ${what}`);
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export class ElectrumBackend implements LightBackend {
  readonly kind = 'electrum' as const;
  readonly client: ElectrumClient;
  private readonly listeners: Array<() => void> = [];

  /** Script hashes subscribed, oldest first, and whether each was hot when last asked. */
  private readonly subscribed = new Map<string, { hot: boolean }>();
  /** The cap: configured, lowered to what the server accepted when it refuses one more. */
  private maxSubscriptions: number;
  /** Histories asked by get_history alone because the script was over the cap (for /health and tests). */
  polledOverCap = 0;

  constructor(options: ElectrumClientOptions & { maxSubscriptions?: number }) {
    this.client = new ElectrumClient(options);
    this.maxSubscriptions = options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS;
    // A renewal the server refused after a reconnect: that script is polled from now on.
    this.client.on('subscription-refused', (method: string, params: unknown[]) => {
      if (method !== SCRIPT_SUBSCRIBE) return;
      this.subscribed.delete(String(params[0]));
      this.maxSubscriptions = Math.max(0, Math.min(this.maxSubscriptions, this.subscribed.size));
    });
    this.client.on('notification', () => this.push());
    // After a reconnect every subscription was renewed; a poll compares the statuses and fetches what changed.
    this.client.on('reconnected', () => this.push());
  }

  get url(): string {
    return this.client.url;
  }

  private push(): void {
    for (const l of this.listeners) l();
  }

  onPush(listener: () => void): void {
    this.listeners.push(listener);
  }

  async tipHeight(): Promise<number> {
    const r = await this.client.subscribe<{ height?: unknown }>('blockchain.headers.subscribe');
    if (!r || typeof r.height !== 'number' || !Number.isSafeInteger(r.height) || r.height < 0) throw new BackendUnavailableError('server sent a malformed tip');
    return r.height;
  }

  async headers(start: number, count: number): Promise<Uint8Array[]> {
    const r = await this.client.request<{ count?: unknown; hex?: unknown }>('blockchain.block.headers', [start, count]);
    const raw = bytes(r?.hex, 'headers');
    if (raw.length % 80 !== 0 || raw.length / 80 !== r.count || Number(r.count) > count) throw new BackendUnavailableError('server sent a malformed headers chunk');
    const out: Uint8Array[] = [];
    for (let i = 0; i < raw.length; i += 80) out.push(raw.subarray(i, i + 80));
    return out;
  }

  /**
   * Subscribed while under the cap (the server then pushes its changes); over it, a hot address takes the place of
   * the oldest subscription that is not hot, and the rest are asked with get_history alone (polled, under the budget).
   */
  async history(script: Uint8Array, known?: string | null, opts: HistoryOptions = {}): Promise<HistoryAnswer | 'unchanged'> {
    const sh = electrumScriptHash(script);
    let status: string | null | undefined;
    if (await this.holdSubscription(sh, opts.hot === true)) {
      try {
        status = await this.client.subscribe<string | null>(SCRIPT_SUBSCRIBE, [sh]);
      } catch (err) {
        if (!(err instanceof ElectrumError)) throw err;
        // The server refuses one more subscription (its limit, e.g. Fulcrum's max_subs_per_ip): keep what it holds, poll the rest.
        this.client.forget(SCRIPT_SUBSCRIBE, [sh]);
        this.subscribed.delete(sh);
        this.maxSubscriptions = this.subscribed.size;
      }
      if (status !== undefined && known !== undefined && status === known) return 'unchanged';
    }
    const list = await this.client.request<Array<{ tx_hash?: unknown; height?: unknown }>>('blockchain.scripthash.get_history', [sh]);
    if (!Array.isArray(list)) throw new BackendUnavailableError('server sent a malformed history');
    const entries: HistoryEntry[] = [];
    for (const e of list) {
      if (typeof e?.tx_hash !== 'string' || !/^[0-9a-f]{64}$/.test(e.tx_hash) || typeof e.height !== 'number' || !Number.isSafeInteger(e.height)) {
        throw new BackendUnavailableError('server sent a malformed history entry');
      }
      entries.push({ txid: e.tx_hash, height: e.height });
    }
    // The protocol defines a status as the hash of the list: one that does not match claims a history not sent.
    const listed = electrumStatus(entries);
    if (status === undefined) {
      this.polledOverCap++;
      if (known !== undefined && listed === known) return 'unchanged';
      return { status: listed, entries };
    }
    const claimed = typeof status === 'string' ? status : null;
    return { status: claimed, entries, ...(claimed !== listed ? { statusMismatch: true } : {}) };
  }

  /** Whether the script is (or may now be) subscribed: within the cap, or a hot one displacing one that is not. */
  private async holdSubscription(sh: string, hot: boolean): Promise<boolean> {
    const had = this.subscribed.get(sh);
    if (had && this.client.hasSubscription(SCRIPT_SUBSCRIBE, [sh])) {
      had.hot = hot;
      return true;
    }
    this.subscribed.delete(sh);
    if (this.subscribed.size < this.maxSubscriptions) {
      this.subscribed.set(sh, { hot });
      return true;
    }
    if (!hot) return false;
    const [cold] = [...this.subscribed].find(([, v]) => !v.hot) ?? [];
    if (cold === undefined) return false;
    this.subscribed.delete(cold);
    await this.client.unsubscribe(SCRIPT_SUBSCRIBE, [cold]);
    this.subscribed.set(sh, { hot });
    return true;
  }

  /** Scripts subscribed now, and the cap (for /health). */
  subscriptions(): { subscribed: number; max: number; polledOverCap: number } {
    return { subscribed: this.subscribed.size, max: this.maxSubscriptions, polledOverCap: this.polledOverCap };
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    try {
      return bytes(await this.client.request<string>('blockchain.transaction.get', [txid, false]), 'transaction');
    } catch (err) {
      if (err instanceof ElectrumError) return null;
      throw err;
    }
  }

  async merkleProof(txid: string, height: number): Promise<MerkleProof> {
    const r = await this.client.request<{ block_height?: unknown; merkle?: unknown; pos?: unknown }>('blockchain.transaction.get_merkle', [txid, height]);
    if (!r || typeof r.block_height !== 'number' || !Array.isArray(r.merkle) || typeof r.pos !== 'number' || !r.merkle.every((m) => typeof m === 'string')) {
      throw new BackendUnavailableError('server sent a malformed Merkle proof');
    }
    return { height: r.block_height, branch: r.merkle as string[], pos: r.pos };
  }

  async broadcast(raw: Uint8Array): Promise<string> {
    return this.client.request<string>('blockchain.transaction.broadcast', [Buffer.from(raw).toString('hex')]);
  }

  async estimateFee(blocks: number): Promise<bigint | null> {
    // BTC per kilobyte as a JSON number, -1 when the server has no estimate.
    const r = await this.client.request<number>('blockchain.estimatefee', [blocks]);
    if (typeof r !== 'number' || !(r > 0)) return null;
    const perVb = (btcJsonToSats(r) + 999n) / 1000n;
    return perVb > 0n ? perVb : 1n;
  }

  budget() {
    return this.client.budget.stats();
  }

  connected(): boolean {
    return this.client.isConnected();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The Electrum source kind (chain/sources.ts). */
export const electrumSource: SourceKind<ElectrumSourceEndpoint> = {
  urlField: 'electrumUrl',
  open(endpoint, deps) {
    const urls = [endpoint.electrumUrl, ...(endpoint.extraServers ?? [])];
    const backend = lightBackend(
      urls.map(
        (url) => new ElectrumBackend({ endpoint: parseElectrumUrl(url), proxy: endpoint.proxy ? parseProxyUrl(endpoint.proxy) : null, budget: budgetShare(endpoint.budget, urls.length), ...(endpoint.maxSubscriptions !== undefined ? { maxSubscriptions: endpoint.maxSubscriptions } : {}) }),
      ),
      deps,
      endpoint.quorum,
    );
    return openLight(backend, deps, { warmEvery: endpoint.warmEvery, coldPerPoll: endpoint.coldPerPoll });
  },
};
