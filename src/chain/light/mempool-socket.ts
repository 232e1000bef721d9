// mempool.space's websocket (`/api/v1/ws`): told which addresses to track, it pushes their new transactions
// (`multi-address-transactions`, or `address-transactions`/`block-transactions` for a single `track-address`)
// and new blocks. Only a hint: what a push says is never recorded. The watcher asks the Esplora API about the
// addresses named and verifies the answers as always; polling stays the safety net for everything.
import WebSocket from 'ws';
import type { Logger } from 'pino';

export interface MempoolSocketOptions {
  /** e.g. `wss://mempool.space/api/v1/ws`. */
  url: string;
  /** Addresses tracked at most (the server's limit; lowered when the server says its own is lower). */
  maxAddresses: number;
  log: Logger;
  /** First reconnect delay; doubles per failed attempt up to maxBackoffMs, with jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** An application ping this often; a socket silent for twice as long is closed and reopened. */
  pingMs?: number;
}

export type SocketState = 'connecting' | 'open' | 'closed';

export interface MempoolSocketStats {
  state: SocketState;
  /** Addresses the server tracks for us now (0 while not open). */
  tracked: number;
  /** The cap in force. */
  cap: number;
  /** Addresses wanted beyond the cap (left to polling). */
  overCap: number;
  pushes: number;
  reconnects: number;
  lastError: string | null;
}

const MAX_MESSAGE = 16 * 1024 * 1024;

export class MempoolSocket {
  private ws: WebSocket | null = null;
  private status: SocketState = 'closed';
  private closed = true;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private lastMessageAt = 0;
  private cap: number;
  /** Addresses the watcher wants tracked, most important first. */
  private wanted: string[] = [];
  /** What the server was last told to track (a subset of wanted, at most cap). */
  private sent: string[] = [];
  private sentSet = new Set<string>();
  private pushes = 0;
  private reconnects = 0;
  private everOpened = false;
  private lastError: string | null = null;
  private readonly addressListeners: Array<(addresses: string[]) => void> = [];
  private readonly blockListeners: Array<() => void> = [];
  private readonly openListeners: Array<(tracked: string[]) => void> = [];

  constructor(private readonly opts: MempoolSocketOptions) {
    this.cap = Math.max(1, opts.maxAddresses);
  }

  /** Called with the tracked addresses a push names (only those we asked for). */
  onAddresses(listener: (addresses: string[]) => void): void {
    this.addressListeners.push(listener);
  }

  /** Called when the server announces a block. */
  onBlock(listener: () => void): void {
    this.blockListeners.push(listener);
  }

  /** Called when the server was (re)told what to track: pushes missed meanwhile must be made up by asking. */
  onTracked(listener: (tracked: string[]) => void): void {
    this.openListeners.push(listener);
  }

  start(): void {
    if (!this.closed) return;
    this.closed = false;
    this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.reconnectTimer = null;
    this.pingTimer = null;
    const ws = this.ws;
    this.ws = null;
    this.status = 'closed';
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.terminate();
      });
    }
  }

  get isOpen(): boolean {
    return this.status === 'open';
  }

  /**
   * Sets the addresses wanted, most important first; the first `cap` are tracked. Returns the ones the
   * server is now told to track that it was not before (their history must be asked once: a push covers
   * only what happens after tracking starts).
   */
  track(addresses: string[]): string[] {
    this.wanted = addresses;
    return this.sendTracking(false);
  }

  /** Whether pushes cover this address now. */
  covers(address: string): boolean {
    return this.isOpen && this.sentSet.has(address);
  }

  stats(): MempoolSocketStats {
    return {
      state: this.status,
      tracked: this.isOpen ? this.sent.length : 0,
      cap: this.cap,
      overCap: Math.max(0, this.wanted.length - this.cap),
      pushes: this.pushes,
      reconnects: this.reconnects,
      lastError: this.lastError,
    };
  }

  private connect(): void {
    if (this.closed) return;
    this.status = 'connecting';
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.opts.url, { maxPayload: MAX_MESSAGE, handshakeTimeout: 15_000 });
    } catch (err) {
      this.lastError = (err as Error).message;
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.status = 'open';
      this.lastMessageAt = Date.now();
      if (this.everOpened) this.reconnects++;
      this.everOpened = true;
      ws.send(JSON.stringify({ action: 'want', data: ['blocks'] }));
      this.sendTracking(true);
      const pingMs = this.opts.pingMs ?? 30_000;
      this.pingTimer = setInterval(() => {
        if (Date.now() - this.lastMessageAt > 2 * pingMs) {
          this.lastError = 'the server went silent';
          ws.terminate();
          return;
        }
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ action: 'ping' }));
      }, pingMs);
      this.pingTimer.unref();
    });
    ws.on('message', (data) => {
      if (this.ws !== ws) return;
      this.lastMessageAt = Date.now();
      this.attempts = 0;
      this.handle(data.toString());
    });
    ws.on('error', (err) => {
      this.lastError = err.message;
    });
    ws.on('close', () => {
      if (this.pingTimer) clearInterval(this.pingTimer);
      this.pingTimer = null;
      if (this.ws !== ws) return;
      this.ws = null;
      this.status = 'closed';
      this.sent = [];
      this.sentSet = new Set();
      if (!this.closed) {
        this.opts.log.warn({ source: this.safeUrl(), err: this.lastError }, 'mempool websocket closed; polling covers its addresses until it is back');
        this.scheduleReconnect();
      }
    });
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const base = this.opts.backoffMs ?? 1_000;
    const max = this.opts.maxBackoffMs ?? 60_000;
    const delay = Math.min(max, base * 2 ** Math.min(this.attempts, 20));
    this.attempts++;
    // Full jitter on the upper half, so many clients dropped together do not return together.
    const wait = Math.round(delay / 2 + Math.random() * (delay / 2));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, wait);
    this.reconnectTimer.unref();
  }

  /** Tells the server the first `cap` wanted addresses when they changed (or always, after a connect). */
  private sendTracking(afterConnect: boolean): string[] {
    const next = this.wanted.slice(0, this.cap);
    const same = next.length === this.sent.length && next.every((a) => this.sentSet.has(a));
    if (!this.isOpen || !this.ws) return [];
    if (same && !afterConnect) return [];
    const fresh = afterConnect ? next : next.filter((a) => !this.sentSet.has(a));
    // A single address goes as `track-address`, which every mempool version understands; more as `track-addresses`.
    if (this.cap === 1) this.ws.send(JSON.stringify({ 'track-address': next[0] ?? null }));
    else this.ws.send(JSON.stringify({ 'track-addresses': next }));
    this.sent = next;
    this.sentSet = new Set(next);
    if (afterConnect) for (const l of this.openListeners) l(next);
    return fresh;
  }

  private handle(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return;
    const m = msg as Record<string, unknown>;
    const named = new Set<string>();
    const multi = m['multi-address-transactions'];
    if (typeof multi === 'object' && multi !== null && !Array.isArray(multi)) {
      for (const address of Object.keys(multi)) if (this.sentSet.has(address)) named.add(address);
    }
    // The single-address form names no address: it is the one we track.
    if ((m['address-transactions'] !== undefined || m['block-transactions'] !== undefined || m['address-removed-transactions'] !== undefined) && this.sent.length === 1) {
      named.add(this.sent[0]!);
    }
    if (named.size > 0) {
      this.pushes++;
      for (const l of this.addressListeners) l([...named]);
    }
    if (m.block !== undefined) for (const l of this.blockListeners) l();
    const error = m['track-addresses-error'];
    if (error !== undefined) {
      // "... supports tracking a maximum of N addresses": the server dropped the whole list; send what fits.
      const max = /maximum of (\d+)/.exec(String(error));
      const lower = max ? Number(max[1]) : Math.floor(this.sent.length / 2);
      this.cap = Math.max(1, Math.min(this.cap, lower, Math.max(1, this.sent.length - 1)));
      this.lastError = `the server tracks at most ${this.cap} addresses`;
      this.opts.log.warn({ source: this.safeUrl(), cap: this.cap }, 'mempool websocket refused the address list; tracking fewer, polling the rest');
      this.sendTracking(true);
    }
  }

  /** Where the socket is, without credentials (safe to log and show). */
  get url(): string {
    return this.safeUrl();
  }

  private safeUrl(): string {
    try {
      const u = new URL(this.opts.url);
      u.username = '';
      u.password = '';
      return u.toString();
    } catch {
      return '(invalid url)';
    }
  }
}
