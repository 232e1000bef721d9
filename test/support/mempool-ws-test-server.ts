// mempool.space's websocket (`/api/v1/ws`) beside the Esplora test server, speaking the messages of
// mempool/mempool's backend `websocket-handler.ts`: `{"action":"want","data":["blocks"]}` → `block` on each
// new block; `{"track-addresses":[...]}` (capped: over the cap, `track-addresses-error` and nothing tracked)
// → `multi-address-transactions` `{address: {mempool, confirmed, removed}}`; `{"track-address": a}` →
// `address-transactions` / `block-transactions`; `{"action":"ping"}` → `pong`. Driven by the real bcoin
// chain: the index is re-read every `pollMs` while a client is connected, and new mempool entries and new
// blocks are pushed to the clients tracking their addresses. It can push a lie and drop every socket.
import type { Server } from 'node:http';
import { WebSocketServer, WebSocket } from 'ws';
import type { LightChainIndex } from './light-chain-index.ts';
import { addressFromScript } from '../../src/bitcoin/address.ts';
import type { RawTx } from '../../src/bitcoin/raw-tx.ts';

export interface MempoolSocketServer {
  /** `ws://127.0.0.1:port/api/v1/ws`. */
  url: string;
  /** The most addresses one connection may track (mempool's MAX_TRACKED_ADDRESSES). */
  maxTrackedAddresses: number;
  /** Connections accepted so far. */
  connections: number;
  /** Messages pushed naming tracked addresses. */
  pushes: number;
  /** The address list each open connection tracks. */
  tracked(): string[][];
  /** Sends a message to every open connection as is (a lie, for tests). */
  sendRaw(message: object): void;
  /** Closes every connection from the server side (abruptly). */
  dropAll(): void;
  close(): Promise<void>;
}

interface Client {
  ws: WebSocket;
  blocks: boolean;
  addresses: Set<string> | null;
  single: string | null;
}

export function attachMempoolSocket(
  server: Server,
  baseUrl: string,
  index: LightChainIndex,
  txJson: (txid: string) => object,
  blockJson: (height: number) => object,
  options: { maxTrackedAddresses?: number; pollMs?: number } = {},
): MempoolSocketServer {
  const wss = new WebSocketServer({ server, path: '/api/v1/ws' });
  const clients = new Set<Client>();
  const addressesOf = (tx: RawTx): Set<string> => {
    const out = new Set<string>();
    for (const o of tx.outputs) {
      const a = addressFromScript(o.script, 'regtest');
      if (a) out.add(a);
    }
    if (!tx.coinbase) {
      for (const i of tx.inputs) {
        const prev = index.output(i.prevTxid, i.vout);
        const a = prev ? addressFromScript(prev.script, 'regtest') : undefined;
        if (a) out.add(a);
      }
    }
    return out;
  };
  let seenMempool = new Set(index.mempoolTxids());
  const announced = new Map<number, string>();
  for (let h = Math.max(0, index.tipHeight() - 20); h <= index.tipHeight(); h++) announced.set(h, index.block(h)!.hash);
  let lastTip = index.tipHeight();

  const control: MempoolSocketServer = {
    url: `${baseUrl.replace(/^http/, 'ws')}/api/v1/ws`,
    maxTrackedAddresses: options.maxTrackedAddresses ?? 100,
    connections: 0,
    pushes: 0,
    tracked: () => [...clients].map((c) => (c.addresses ? [...c.addresses] : c.single ? [c.single] : [])),
    sendRaw: (message) => {
      for (const c of clients) if (c.ws.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify(message));
    },
    dropAll: () => {
      for (const c of clients) c.ws.terminate();
    },
    close: async () => {
      clearInterval(timer);
      for (const c of clients) c.ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };

  wss.on('connection', (ws) => {
    control.connections++;
    const client: Client = { ws, blocks: false, addresses: null, single: null };
    clients.add(client);
    ws.on('close', () => clients.delete(client));
    ws.on('error', () => ws.terminate());
    ws.on('message', (data) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        ws.close(); // as mempool does with a message it cannot parse
        return;
      }
      const response: Record<string, unknown> = {};
      if (m.action === 'want' && Array.isArray(m.data)) client.blocks = m.data.includes('blocks');
      if (m.action === 'ping') response.pong = true;
      if (m['track-address'] !== undefined) client.single = typeof m['track-address'] === 'string' ? m['track-address'] : null;
      if (Array.isArray(m['track-addresses'])) {
        const list = m['track-addresses'].filter((a): a is string => typeof a === 'string');
        if (list.length > control.maxTrackedAddresses) {
          response['track-addresses-error'] = `too many addresses requested, this connection supports tracking a maximum of ${control.maxTrackedAddresses} addresses`;
          client.addresses = null;
        } else client.addresses = list.length > 0 ? new Set(list) : null;
      }
      if (Object.keys(response).length > 0) ws.send(JSON.stringify(response));
    });
  });

  const push = (client: Client, message: Record<string, unknown>) => {
    if (client.ws.readyState !== WebSocket.OPEN || Object.keys(message).length === 0) return;
    client.ws.send(JSON.stringify(message));
  };

  /** One look at the chain: new blocks first, then the mempool's new and removed entries. */
  const tick = async () => {
    await index.refresh();
    const tip = index.tipHeight();
    const fresh: number[] = [];
    for (let h = Math.max(0, Math.min(lastTip, tip) - 20); h <= tip; h++) {
      const b = index.block(h)!;
      if (announced.get(h) !== b.hash) {
        fresh.push(h);
        announced.set(h, b.hash);
      }
    }
    for (let h = tip + 1; h <= lastTip; h++) announced.delete(h);
    lastTip = tip;
    for (const h of fresh) {
      const byAddress = new Map<string, string[]>();
      for (const txid of index.block(h)!.txids) {
        const t = index.tx(txid);
        if (!t) continue;
        for (const a of addressesOf(t.tx)) byAddress.set(a, [...(byAddress.get(a) ?? []), txid]);
      }
      for (const c of clients) {
        const message: Record<string, unknown> = {};
        if (c.blocks) message.block = blockJson(h);
        const multi: Record<string, object> = {};
        for (const a of c.addresses ?? []) {
          const txids = byAddress.get(a);
          if (txids) multi[a] = { mempool: [], confirmed: txids.map(txJson), removed: [] };
        }
        if (Object.keys(multi).length > 0) {
          message['multi-address-transactions'] = multi;
          control.pushes++;
        }
        const single = c.single ? byAddress.get(c.single) : undefined;
        if (single) {
          message['block-transactions'] = single.map(txJson);
          control.pushes++;
        }
        push(c, message);
      }
    }
    const now = new Set(index.mempoolTxids());
    const added = [...now].filter((t) => !seenMempool.has(t));
    const removed = [...seenMempool].filter((t) => !now.has(t) && (index.tx(t)?.height ?? 0) <= 0);
    seenMempool = now;
    if (added.length === 0 && removed.length === 0) return;
    const addedBy = new Map<string, string[]>();
    for (const txid of added) for (const a of addressesOf(index.tx(txid)!.tx)) addedBy.set(a, [...(addedBy.get(a) ?? []), txid]);
    for (const c of clients) {
      const multi: Record<string, object> = {};
      for (const a of c.addresses ?? []) {
        const txids = addedBy.get(a);
        if (txids) multi[a] = { mempool: txids.map(txJson), confirmed: [], removed: [] };
      }
      const message: Record<string, unknown> = {};
      if (Object.keys(multi).length > 0) {
        message['multi-address-transactions'] = multi;
        control.pushes++;
      }
      const single = c.single ? addedBy.get(c.single) : undefined;
      if (single) {
        message['address-transactions'] = single.map(txJson);
        control.pushes++;
      }
      push(c, message);
    }
  };

  let busy = false;
  const timer = setInterval(() => {
    if (busy || clients.size === 0) return;
    busy = true;
    tick()
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, options.pollMs ?? 100);
  timer.unref();
  return control;
}
