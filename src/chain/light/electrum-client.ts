// An Electrum protocol client: newline-delimited JSON-RPC 2.0 over TCP or TLS (optionally through SOCKS5),
// that reconnects with backoff and resubscribes what it was subscribed to. TLS certificates are checked
// against the system's CAs, or, for a self-signed home server, pinned by their SHA-256 fingerprint.
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { EventEmitter } from 'node:events';
import { RequestBudget, type BudgetOptions } from './request-budget.ts';
import { BackendUnavailableError } from './light-backend.ts';
import { connectThroughProxy, type ProxyConfig } from './socks-proxy.ts';
import type { ElectrumEndpoint } from '../../config/electrum-url.ts';

export { parseElectrumUrl, type ElectrumEndpoint } from '../../config/electrum-url.ts';

/** JSON-RPC error -101 or "excessive resource usage": the server's per-session cost limit (ElectrumX, Fulcrum). */
function isThrottle(err: { code?: number; message?: string }): boolean {
  return err.code === -101 || (typeof err.message === 'string' && /excessive resource usage/i.test(err.message));
}

/** The server answered a request with a JSON-RPC error (e.g. unknown transaction). */
export class ElectrumError extends Error {
  override name = 'ElectrumError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message}`);
  }
}

export interface ElectrumClientOptions {
  endpoint: ElectrumEndpoint;
  clientName?: string;
  proxy?: ProxyConfig | null;
  timeoutMs?: number;
  budget?: RequestBudget | BudgetOptions;
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const PROTOCOL = '1.4';
const MAX_LINE = 64 * 1024 * 1024;

/**
 * Events: `notification` (method, params) for subscription pushes, `reconnected` after a new connection
 * was negotiated and the subscriptions renewed.
 */
export class ElectrumClient extends EventEmitter {
  readonly budget: RequestBudget;
  private socket: Socket | TLSSocket | null = null;
  private connecting: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffer = '';
  private closed = false;
  /** Subscriptions to renew after a reconnect: method → params list (keyed by JSON). */
  private readonly subscriptions = new Map<string, { method: string; params: unknown[] }>();
  private pingTimer: NodeJS.Timeout | null = null;
  serverVersion: string | null = null;
  /** The server's `server.features` answer (protocol range, pruning, genesis), read once a connection; null if refused. */
  features: Record<string, unknown> | null = null;

  constructor(private readonly opts: ElectrumClientOptions) {
    super();
    this.budget = opts.budget instanceof RequestBudget ? opts.budget : new RequestBudget(opts.budget);
  }

  get url(): string {
    const e = this.opts.endpoint;
    return `${e.tls ? 'ssl' : 'tcp'}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
  }

  isConnected(): boolean {
    return this.socket !== null && this.connecting === null;
  }

  /** Calls a method, connecting (and waiting out a backoff) first; transport failures reject with BackendUnavailableError. */
  async request<T>(method: string, params: unknown[] = []): Promise<T> {
    await this.ensureConnected();
    return this.send<T>(method, params);
  }

  /** Subscribes (and remembers to renew after reconnects); resolves with the current value. */
  async subscribe<T>(method: string, params: unknown[] = []): Promise<T> {
    this.subscriptions.set(`${method}${JSON.stringify(params)}`, { method, params });
    return this.request<T>(method, params);
  }

  /** Ends a subscription (Electrum 1.4.2 `*.unsubscribe`); a server without the method keeps it, we forget it. */
  async unsubscribe(method: string, params: unknown[]): Promise<void> {
    if (!this.subscriptions.delete(`${method}${JSON.stringify(params)}`)) return;
    if (!this.isConnected()) return;
    await this.send(method.replace(/\.subscribe$/, '.unsubscribe'), params).catch((err: unknown) => {
      if (!(err instanceof ElectrumError)) throw err;
    });
  }

  /** Forgets a subscription the server refused, so a reconnect does not ask it again. */
  forget(method: string, params: unknown[]): void {
    this.subscriptions.delete(`${method}${JSON.stringify(params)}`);
  }

  hasSubscription(method: string, params: unknown[]): boolean {
    return this.subscriptions.has(`${method}${JSON.stringify(params)}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.socket?.destroy();
    this.socket = null;
    this.failAll(new BackendUnavailableError('client closed'));
  }

  private async ensureConnected(): Promise<void> {
    if (this.closed) throw new BackendUnavailableError('client closed');
    if (this.socket && !this.connecting) return;
    if (!this.connecting) {
      this.connecting = this.open().finally(() => {
        this.connecting = null;
      });
    }
    await this.connecting;
  }

  private async open(): Promise<void> {
    const { endpoint, proxy } = this.opts;
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    await this.budget.take();
    let socket: Socket | TLSSocket;
    try {
      const raw = proxy ? await connectThroughProxy(proxy, endpoint.host, endpoint.port, timeoutMs) : undefined;
      socket = await new Promise<Socket | TLSSocket>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        let s: Socket | TLSSocket;
        if (endpoint.tls) {
          s = tlsConnect({
            host: endpoint.host,
            port: endpoint.port,
            ...(raw ? { socket: raw } : {}),
            servername: /^[\d.:]+$/.test(endpoint.host) ? undefined : endpoint.host,
            // A pinned certificate replaces the CA check (home servers sign their own); otherwise the CAs decide.
            rejectUnauthorized: endpoint.fingerprint === null,
          });
          s.once('secureConnect', () => {
            const tls = s as TLSSocket;
            if (endpoint.fingerprint !== null) {
              const got = tls.getPeerCertificate().fingerprint256?.replace(/:/g, '').toUpperCase();
              if (got !== endpoint.fingerprint) {
                tls.destroy();
                reject(new Error(`the server's certificate fingerprint ${got ?? '(none)'} is not the pinned one`));
                return;
              }
            }
            resolve(tls);
          });
        } else if (raw) {
          s = raw;
          resolve(raw);
        } else {
          s = tcpConnect({ host: endpoint.host, port: endpoint.port });
          s.once('connect', () => resolve(s));
        }
        s.once('error', onError);
        s.setTimeout(timeoutMs, () => s.destroy(new Error(`no connection within ${timeoutMs} ms`)));
      });
    } catch (err) {
      this.budget.refused();
      throw new BackendUnavailableError(`cannot connect to ${this.url}: ${(err as Error).message}`);
    }
    socket.setTimeout(0);
    socket.setEncoding('utf8');
    this.buffer = '';
    this.socket = socket;
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () => this.onClose(socket));
    try {
      const v = await this.send<[string, string]>('server.version', [this.opts.clientName ?? 'satgate', PROTOCOL]);
      this.serverVersion = Array.isArray(v) ? String(v[0]) : null;
      if (!Array.isArray(v) || v[1] !== PROTOCOL) throw new BackendUnavailableError(`server does not speak protocol ${PROTOCOL}`);
      // Its stated limits and features (spesmilo's protocol: server.features); a server that refuses it still serves.
      const features = await this.send<unknown>('server.features', []).catch((err: unknown) => {
        if (err instanceof ElectrumError) return null;
        throw err;
      });
      this.features = features && typeof features === 'object' && !Array.isArray(features) ? (features as Record<string, unknown>) : null;
      for (const [key, { method, params }] of this.subscriptions) {
        // A subscription the server now refuses (its limit) is dropped, not a failed connection: the owner polls it.
        await this.send(method, params).catch((err: unknown) => {
          if (!(err instanceof ElectrumError)) throw err;
          this.subscriptions.delete(key);
          this.emit('subscription-refused', method, params);
        });
      }
    } catch (err) {
      socket.destroy();
      throw err;
    }
    this.budget.succeeded();
    if (this.pingTimer) clearInterval(this.pingTimer);
    // Servers drop idle sessions; a ping a minute keeps ours.
    this.pingTimer = setInterval(() => void this.request('server.ping').catch(() => {}), 60_000);
    this.pingTimer.unref();
    this.emit('reconnected');
  }

  private async send<T>(method: string, params: unknown[]): Promise<T> {
    const socket = this.socket;
    if (!socket) throw new BackendUnavailableError(`not connected to ${this.url}`);
    await this.budget.take();
    const id = this.nextId++;
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BackendUnavailableError(`${method}: no answer within ${timeoutMs} ms`));
        // A server that stops answering is treated as gone: reconnect.
        socket.destroy();
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_LINE) {
      this.socket?.destroy(new Error('message too long'));
      return;
    }
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line) this.onMessage(line);
    }
  }

  private onMessage(line: string): void {
    let msgs: unknown;
    try {
      msgs = JSON.parse(line);
    } catch {
      this.socket?.destroy(new Error('server sent a line that is not JSON'));
      return;
    }
    for (const msg of Array.isArray(msgs) ? msgs : [msgs]) {
      if (!msg || typeof msg !== 'object') continue;
      const m = msg as { id?: number | null; method?: string; params?: unknown[]; result?: unknown; error?: { code?: number; message?: string } | null };
      if (typeof m.method === 'string' && (m.id === undefined || m.id === null)) {
        this.emit('notification', m.method, Array.isArray(m.params) ? m.params : []);
        continue;
      }
      const p = typeof m.id === 'number' ? this.pending.get(m.id) : undefined;
      if (!p) continue;
      this.pending.delete(m.id as number);
      clearTimeout(p.timer);
      if (m.error) {
        const err = m.error;
        if (isThrottle(err)) {
          // ElectrumX/Fulcrum's session cost is spent: back off (exponential, jittered), never retry at once.
          this.budget.refused();
          p.reject(new BackendUnavailableError(`${p.method}: ${this.url} refused: excessive resource usage (backing off)`));
          continue;
        }
        p.reject(new ElectrumError(p.method, typeof err.code === 'number' ? err.code : 0, typeof err.message === 'string' ? err.message : JSON.stringify(err)));
      } else {
        this.budget.succeeded();
        p.resolve(m.result);
      }
    }
  }

  private onClose(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.failAll(new BackendUnavailableError(`connection to ${this.url} closed`));
    if (!this.closed) {
      // A dropped connection counts as a refusal: the next connect waits out a jittered backoff.
      this.budget.refused();
      this.emit('disconnected');
    }
  }

  private failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }
}
