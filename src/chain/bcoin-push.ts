// Push hints from a bcoin node (issue 16): bcoin's HTTP server speaks bsock (socket.io-style events over a
// WebSocket) and announces each new mempool transaction ('tx') and each block connected or disconnected.
// A transaction event carries the transaction's bytes: the watcher records it at once when it touches a
// watched script (see ChainWatcher.pushTx). A block event is a wake-up call: the watcher polls at once. The
// timer keeps polling as the safety net if the socket is down or misses an event.
import { createRequire } from 'node:module';
import type { Logger } from 'pino';

// Just the parts of bsock's (untyped, CommonJS) client used here.
interface BsockSocket {
  connect(port: number, host: string, ssl?: boolean): BsockSocket;
  on(event: 'connect' | 'disconnect', listener: () => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  bind(event: string, handler: (...args: unknown[]) => void): void;
  call(...args: unknown[]): Promise<unknown>;
  destroy(): void;
}
const bsock = createRequire(import.meta.url)('bsock') as { socket(): BsockSocket };

// A serialized BIP37 filter (var-bytes filter, u32 hash functions, u32 tweak, u8 flags) of 8 set bits.
const MATCH_ALL_FILTER = Buffer.from([1, 0xff, 1, 0, 0, 0, 0, 0, 0, 0, 0]);

/** A live subscription; `close` ends it. */
export interface PushSubscription {
  close(): void;
}

/** What a push subscription reports: a transaction's bytes, or that the chain changed. */
export interface PushHandlers {
  tx(raw: Uint8Array): void;
  block(): void;
}

/**
 * Subscribes to a bcoin node's chain and mempool events at its RPC URL (the same host, port and API key).
 * bsock reconnects by itself; each (re)connection authenticates and subscribes again.
 */
export function subscribeBcoin(rpcUrl: string, on: PushHandlers, log: Pick<Logger, 'debug' | 'warn'>): PushSubscription {
  const url = new URL(rpcUrl);
  const apiKey = decodeURIComponent(url.password);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const socket = bsock.socket();
  socket.on('connect', () => {
    void (async () => {
      try {
        if (apiKey) await socket.call('auth', apiKey);
        // bcoin sends mempool transactions only through a BIP37 filter: one whose bits are all set matches
        // every transaction, as polling getrawmempool sees every one (matching stays ours).
        await socket.call('set filter', MATCH_ALL_FILTER);
        await socket.call('watch chain');
        await socket.call('watch mempool');
        log.debug({ node: `${url.hostname}:${port}` }, 'subscribed to the node\'s chain and mempool events');
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'node event subscription refused; polling only');
      }
    })();
  });
  socket.on('error', (err) => log.debug({ err: err.message }, 'node event socket error; it reconnects, polling meanwhile'));
  socket.bind('tx', (raw) => {
    if (raw instanceof Uint8Array) on.tx(raw);
    else on.block(); // not the bytes expected: at least poll
  });
  socket.bind('chain connect', () => on.block());
  socket.bind('chain disconnect', () => on.block());
  socket.connect(port, url.hostname, url.protocol === 'https:');
  return { close: () => socket.destroy() };
}
