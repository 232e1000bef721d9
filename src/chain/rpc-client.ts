// A small typed JSON-RPC client for Bitcoin Core (and bcoin, which tests run against) over fetch.
// Credentials come from the URL's userinfo or Core's cookie file and never appear in errors.
import { readFile } from 'node:fs/promises';

/** The node answered with a JSON-RPC error (e.g. "Block not found"); not retried. */
export class RpcError extends Error {
  override name = 'RpcError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (code ${code})`);
  }
}

/** The node could not be reached or did not answer usably (connection, timeout, HTTP status). */
export class RpcUnavailableError extends Error {
  override name = 'RpcUnavailableError';
  constructor(
    readonly method: string,
    message: string,
    readonly status?: number,
  ) {
    super(`${method}: ${message}`);
  }
}

export interface RpcClientOptions {
  /** Node URL, e.g. `http://user:pass@127.0.0.1:8332/`; userinfo is used as basic auth. */
  url: string;
  /** Path of Bitcoin Core's `.cookie` file (`__cookie__:secret`); re-read after a 401. */
  cookieFile?: string;
  /** Per-attempt timeout, milliseconds (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt for transport failures (default 3). */
  retries?: number;
  /** First backoff delay, doubled each retry (default 250 ms). */
  retryDelayMs?: number;
  /** Fee rate (sat/vB) `estimateSmartFee` returns when the node has no estimate (default 2). */
  fallbackFeeRate?: bigint;
}

export interface BlockchainInfo {
  chain: string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  mediantime: number;
  /** Bitcoin Core only; bcoin leaves it out. */
  initialblockdownload?: boolean;
}

export interface BlockHeaderInfo {
  hash: string;
  height: number;
  /** -1 when the block is not on the best chain. */
  confirmations: number;
  version: number;
  merkleroot: string;
  time: number;
  mediantime: number;
  /** Compact target as 8 hex digits (Core's form; bcoin's number is converted). */
  bits: string;
  /** Absent for the genesis block. */
  previousblockhash?: string;
  nextblockhash?: string;
}

// JSON-RPC codes that mean "try again shortly" rather than a real answer: Core's warm-up.
const RETRYABLE_CODES = new Set([-28]);
// Core -5 (RPC_INVALID_ADDRESS_OR_KEY) and bcoin -1 both answer a missing transaction.
const TX_NOT_FOUND = /not found|no such/i;

/** Typed client for the RPC calls both Bitcoin Core and bcoin answer. */
export class RpcClient {
  private readonly endpoint: string;
  private readonly urlAuth: string | undefined;
  private cookieAuth: string | undefined;
  private readonly opts: Required<Omit<RpcClientOptions, 'cookieFile' | 'url'>> & { cookieFile?: string };
  private nextId = 1;

  constructor(options: RpcClientOptions) {
    const u = new URL(options.url);
    this.urlAuth =
      u.username || u.password
        ? 'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')
        : undefined;
    u.username = '';
    u.password = '';
    this.endpoint = u.toString();
    this.opts = {
      timeoutMs: options.timeoutMs ?? 30_000,
      retries: options.retries ?? 3,
      retryDelayMs: options.retryDelayMs ?? 250,
      fallbackFeeRate: options.fallbackFeeRate ?? 2n,
      cookieFile: options.cookieFile,
    };
  }

  /** The node URL without credentials (safe to log). */
  get url(): string {
    return this.endpoint;
  }

  /** Call any RPC method; retries transport failures with exponential backoff. */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    let delay = this.opts.retryDelayMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, params);
      } catch (err) {
        const retryable = err instanceof RpcUnavailableError || (err instanceof RpcError && RETRYABLE_CODES.has(err.code));
        if (!retryable || attempt >= this.opts.retries) throw err;
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }

  private async auth(reload: boolean): Promise<string | undefined> {
    if (!this.opts.cookieFile) return this.urlAuth;
    if (this.cookieAuth === undefined || reload) {
      let text: string;
      try {
        text = (await readFile(this.opts.cookieFile, 'utf8')).trim();
      } catch (err) {
        throw new RpcUnavailableError('auth', `cannot read cookie file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      }
      this.cookieAuth = 'Basic ' + Buffer.from(text).toString('base64');
    }
    return this.cookieAuth;
  }

  private async once<T>(method: string, params: unknown[], reloadedCookie = false): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const auth = await this.auth(reloadedCookie);
    if (auth) headers.authorization = auth;
    const body = JSON.stringify({ jsonrpc: '1.0', id: this.nextId++, method, params });
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs) });
      text = await res.text();
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === 'TimeoutError' ? `timed out after ${this.opts.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      throw new RpcUnavailableError(method, `cannot reach node at ${this.endpoint}: ${why}`);
    }
    if (res.status === 401 || res.status === 403) {
      // Core writes a new cookie on every restart.
      if (this.opts.cookieFile && !reloadedCookie) return this.once<T>(method, params, true);
      throw new RpcUnavailableError(method, `node refused the credentials (HTTP ${res.status})`, res.status);
    }
    let parsed: { result?: T; error?: { code?: number; message?: string } | null } | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    // Core sends RPC errors with HTTP 404/500 status, so a JSON error body wins over the status.
    if (parsed && typeof parsed === 'object' && parsed.error) {
      throw new RpcError(method, parsed.error.code ?? 0, parsed.error.message ?? 'unknown error');
    }
    if (!res.ok || !parsed || typeof parsed !== 'object' || !('result' in parsed)) {
      throw new RpcUnavailableError(method, `unusable answer (HTTP ${res.status})`, res.status);
    }
    return parsed.result as T;
  }

  /** `getblockchaininfo`. */
  async getBlockchainInfo(): Promise<BlockchainInfo> {
    return this.call<BlockchainInfo>('getblockchaininfo');
  }

  /** `getbestblockhash`: hash of the tip of the best chain. */
  async getBestBlockHash(): Promise<string> {
    return this.call<string>('getbestblockhash');
  }

  /** `getblockhash <height>` on the best chain. */
  async getBlockHash(height: number): Promise<string> {
    return this.call<string>('getblockhash', [height]);
  }

  /** `getblockheader <hash> true`, normalised across Core and bcoin. */
  async getBlockHeader(hash: string): Promise<BlockHeaderInfo> {
    const h = await this.call<Record<string, unknown>>('getblockheader', [hash, true]);
    const bits = typeof h.bits === 'number' ? h.bits.toString(16).padStart(8, '0') : String(h.bits);
    const out: BlockHeaderInfo = {
      hash: String(h.hash),
      height: Number(h.height),
      confirmations: Number(h.confirmations),
      version: Number(h.version),
      merkleroot: String(h.merkleroot),
      time: Number(h.time),
      mediantime: Number(h.mediantime),
      bits,
    };
    // bcoin sends null where Core leaves the field out.
    if (typeof h.previousblockhash === 'string') out.previousblockhash = h.previousblockhash;
    if (typeof h.nextblockhash === 'string') out.nextblockhash = h.nextblockhash;
    return out;
  }

  /** `getblock <hash> false`: the serialized block. */
  async getRawBlock(hash: string): Promise<Uint8Array> {
    return hexToBytes(await this.call<string>('getblock', [hash, false]), 'getblock');
  }

  /** `getrawmempool`: txids in the node's mempool. */
  async getRawMempool(): Promise<string[]> {
    return this.call<string[]>('getrawmempool', [false]);
  }

  /** `getrawtransaction <txid> false`: serialized transaction, or null when the node does not know it. */
  async getRawTransaction(txid: string): Promise<Uint8Array | null> {
    try {
      return hexToBytes(await this.call<string>('getrawtransaction', [txid, false]), 'getrawtransaction');
    } catch (err) {
      if (err instanceof RpcError && (err.code === -5 || TX_NOT_FOUND.test(err.message))) return null;
      throw err;
    }
  }

  /** `sendrawtransaction <hex>`: returns the txid. */
  async sendRawTransaction(tx: string | Uint8Array): Promise<string> {
    const hexTx = typeof tx === 'string' ? tx : Buffer.from(tx).toString('hex');
    return this.call<string>('sendrawtransaction', [hexTx]);
  }

  /** `estimatesmartfee <blocks>` as whole sat/vB (rounded up), or the fallback rate when the node has none. */
  async estimateSmartFee(blocks: number): Promise<bigint> {
    // Core answers {feerate}, bcoin {fee}; both in BTC per 1000 vbytes, -1 or absent when unknown.
    const r = await this.call<{ feerate?: number; fee?: number }>('estimatesmartfee', [blocks]);
    const rate = r.feerate ?? r.fee;
    if (typeof rate !== 'number' || !(rate > 0)) return this.opts.fallbackFeeRate;
    const satPerKvB = btcJsonToSats(rate);
    const satPerVb = (satPerKvB + 999n) / 1000n;
    return satPerVb > 0n ? satPerVb : 1n;
  }
}

function hexToBytes(hex: string, method: string): Uint8Array {
  // Buffer.from stops at the first non-hex character, so a short result means malformed hex.
  const bytes = typeof hex === 'string' && hex.length % 2 === 0 ? Buffer.from(hex, 'hex') : undefined;
  if (!bytes || bytes.length * 2 !== hex.length) throw new RpcUnavailableError(method, 'node answered with malformed hex');
  // A plain Uint8Array view (no copy), so callers never meet Buffer-specific behaviour.
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Exact satoshis of a BTC amount the node sent as a JSON number (at most 8 decimals). */
export function btcJsonToSats(btc: number): bigint {
  // The shortest round-trip string of the parsed number is the decimal the node wrote.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(btc));
  if (!m) throw new RangeError(`not a non-negative BTC amount: ${btc}`);
  const digits = (m[1] ?? '') + (m[2] ?? '');
  const scale = (m[2]?.length ?? 0) - Number(m[3] ?? 0) - 8;
  const n = BigInt(digits);
  if (scale <= 0) return n * 10n ** BigInt(-scale);
  // More than 8 decimals: round up to the next satoshi (fee rates, never balances).
  const d = 10n ** BigInt(scale);
  return (n + d - 1n) / d;
}
