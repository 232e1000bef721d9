// A small Electrum protocol server (protocol 1.4, spesmilo/electrum-protocol docs/protocol-methods.rst)
// over a real bcoin regtest node, for tests. It is strict where Electrum itself is: `server.version`
// echoes the negotiated version, `blockchain.block.headers` returns exactly the count asked (up to
// `max` 2016), mempool history entries carry `fee`. It can lie and throttle (see light-lies.ts).
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { RegtestNode } from './regtest-node.ts';
import { LightChainIndex, scriptSha, type HistoryItem } from './light-chain-index.ts';
import { headerFailingPow, phantomTx, ServerThrottle, type LieSettings } from './light-lies.ts';
import { electrumStatus } from '../../src/chain/light/script-hash.ts';
import { merkleBranch } from '../../src/chain/light/merkle-proof.ts';
import type { RawTx } from '../../src/bitcoin/raw-tx.ts';

const PROTOCOL = '1.4';
const MAX_HEADERS = 2016;

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Session {
  socket: Socket;
  buffer: string;
  negotiated: boolean;
  scripthashes: Map<string, string | null>;
  headers: boolean;
  lastTip: number;
  requests: number;
}

export interface ElectrumTestServer {
  /** `tcp://127.0.0.1:port` (or `ssl://…` with TLS). */
  url: string;
  host: string;
  port: number;
  lies: LieSettings;
  throttle: ServerThrottle;
  /** A server's own limits: script subscriptions per session (Fulcrum's max_subs_per_ip, 50,000 by default). */
  limits: { subscriptions?: number };
  /** Script hashes subscribed now, over all sessions. */
  subscribedCount(): number;
  /** Drops every open connection (clients must reconnect and resubscribe). */
  dropConnections(): void;
  /** Methods called, in order, for assertions. */
  calls: string[];
  /** The script hash of every `blockchain.scripthash.subscribe` call, in order. */
  scriptAsks: string[];
  /** The (start, count) of every `blockchain.block.headers` call, in order. */
  headerRequests: Array<{ start: number; count: number }>;
  close(): Promise<void>;
}

export async function startElectrumTestServer(
  node: RegtestNode,
  opts: { tls?: { key: string; cert: string }; notifyMs?: number } = {},
): Promise<ElectrumTestServer> {
  const index = new LightChainIndex(node.rpc);
  await index.refresh();
  const lies: LieSettings = {};
  const limits: { subscriptions?: number } = {};
  const throttle = new ServerThrottle();
  const sessions = new Set<Session>();
  const calls: string[] = [];
  const headerRequests: Array<{ start: number; count: number }> = [];
  const scriptAsks: string[] = [];
  const phantoms = new Map<string, { tx: RawTx; kind: 'phantom' | 'badpow' }>();

  const phantomFor = (kind: 'phantom' | 'badpow', script: Uint8Array, value: bigint): RawTx => {
    for (const p of phantoms.values()) if (p.kind === kind && Buffer.compare(p.tx.outputs[0]!.script, script) === 0) return p.tx;
    const tx = phantomTx(script, value);
    phantoms.set(tx.txid, { tx, kind });
    return tx;
  };
  const badPowHeader = (): Uint8Array | null => {
    if (!lies.badPowBlock) return null;
    const tip = index.block(index.tipHeight())!;
    const tx = phantomFor('badpow', lies.badPowBlock.script, lies.badPowBlock.value);
    return headerFailingPow(tip.hash, tx.txid, tip.time + 1, tip.bits);
  };
  const claimedTip = () => Math.min(lies.stuckAt ?? Infinity, index.tipHeight() + (lies.badPowBlock ? 1 : 0));
  const headerAt = (h: number): Uint8Array | undefined =>
    h > (lies.stuckAt ?? Infinity) ? undefined : h === index.tipHeight() + 1 ? (badPowHeader() ?? undefined) : index.block(h)?.header;

  const historyOf = (shReversed: string, forStatus = false): HistoryItem[] => {
    const sha = Buffer.from(shReversed, 'hex').reverse().toString('hex');
    if (lies.hideHistoryOf && scriptSha(lies.hideHistoryOf) === sha) return [];
    if (!forStatus && lies.hideListKeepStatus && scriptSha(lies.hideListKeepStatus) === sha) return [];
    const items = index.history(sha).filter((i) => i.height <= (lies.stuckAt ?? Infinity));
    if (lies.phantomPayment && scriptSha(lies.phantomPayment.script) === sha) {
      items.push({ txid: phantomFor('phantom', lies.phantomPayment.script, lies.phantomPayment.value).txid, height: index.tipHeight() });
    }
    if (lies.badPowBlock && scriptSha(lies.badPowBlock.script) === sha) {
      items.push({ txid: phantomFor('badpow', lies.badPowBlock.script, lies.badPowBlock.value).txid, height: index.tipHeight() + 1 });
    }
    if (lies.hiddenReorg) {
      for (const [txid, o] of index.orphaned) {
        const t = index.tx(txid);
        if (!t || t.height > 0) continue;
        const raw = t.tx;
        const touches = raw.outputs.some((out) => scriptSha(out.script) === sha);
        if (!touches) continue;
        const at = items.findIndex((i) => i.txid === txid);
        if (at >= 0) items.splice(at, 1);
        items.push({ txid, height: o.height });
      }
    }
    // Mined first (by height), then waiting, as the protocol orders them.
    const mined = items.filter((i) => i.height > 0).sort((a, b) => a.height - b.height);
    const waiting = items.filter((i) => i.height <= 0);
    return [...mined, ...waiting];
  };
  // A status is the hash of the honest list, even when the list sent hides (hideListKeepStatus).
  const statusOf = (sh: string) => electrumStatus(historyOf(sh, true));


  const rawTx = (txid: string): Uint8Array | undefined => phantoms.get(txid)?.tx.bytes ?? index.tx(txid)?.tx.bytes;

  const merkleOf = (txid: string, height: number): { block_height: number; merkle: string[]; pos: number } => {
    const phantom = phantoms.get(txid);
    if (phantom?.kind === 'badpow') return { block_height: height, merkle: [], pos: 0 };
    if (phantom?.kind === 'phantom') {
      const block = index.block(height)!;
      return { block_height: height, merkle: merkleBranch(block.txids, 0), pos: 0 };
    }
    if (lies.hiddenReorg) {
      const o = index.orphaned.get(txid);
      if (o && o.height === height && !(index.tx(txid)!.height > 0)) return { block_height: height, merkle: merkleBranch(o.blockTxids, o.pos), pos: o.pos };
    }
    const proof = index.merkle(txid);
    if (!proof || proof.height !== height) throw new RpcFailure(-32600, `tx ${txid} not in block at height ${height}`);
    if (lies.proofForAnotherTx) {
      const block = index.block(height)!;
      const other = proof.pos === 0 ? 1 : 0;
      if (block.txids.length > 1) return { block_height: height, merkle: merkleBranch(block.txids, other), pos: other };
    }
    return { block_height: proof.height, merkle: proof.branch, pos: proof.pos };
  };

  const num = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new RpcFailure(-32602, `invalid ${name}`);
    return v;
  };
  const hash = (v: unknown, name: string): string => {
    if (typeof v !== 'string' || !/^[0-9a-f]{64}$/.test(v)) throw new RpcFailure(-32602, `invalid ${name}`);
    return v;
  };

  async function handle(session: Session, method: string, params: unknown[]): Promise<unknown> {
    calls.push(method);
    if (method === 'blockchain.scripthash.subscribe') scriptAsks.push(String(params[0]));
    if (method === 'blockchain.block.headers') headerRequests.push({ start: Number(params[0]), count: Number(params[1]) });
    if (!session.negotiated && method !== 'server.version') {
      // ElectrumX answers anything before version negotiation, but satgate and Electrum always negotiate first.
    }
    await index.refresh();
    switch (method) {
      case 'server.version': {
        const asked = params[1] ?? PROTOCOL;
        const [min, max] = Array.isArray(asked) ? [String(asked[0]), String(asked[1] ?? asked[0])] : [String(asked), String(asked)];
        if (!(min <= PROTOCOL && PROTOCOL <= max)) throw new RpcFailure(1, `unsupported protocol version: ${JSON.stringify(asked)}`);
        session.negotiated = true;
        return ['satgate-test-electrum 0.1', PROTOCOL];
      }
      case 'server.ping':
        return null;
      case 'server.banner':
        return 'satgate test server';
      case 'server.donation_address':
        return '';
      case 'server.features':
        return {
          genesis_hash: index.block(0)!.hash,
          hosts: {},
          protocol_max: PROTOCOL,
          protocol_min: PROTOCOL,
          pruning: null,
          server_version: 'satgate-test-electrum 0.1',
          hash_function: 'sha256',
        };
      case 'server.peers.subscribe':
        return [];
      case 'mempool.get_fee_histogram':
        return [];
      case 'blockchain.relayfee':
        return 0.00001;
      case 'blockchain.estimatefee': {
        num(params[0], 'number');
        // The protocol's answer when the daemon cannot estimate (bcoin refuses targets it does not track) is -1.
        const r = await node.rpc.call<{ fee?: number; feerate?: number }>('estimatesmartfee', [params[0]]).catch(() => ({ fee: -1 }));
        const rate = (r as { feerate?: number }).feerate ?? r.fee;
        return typeof rate === 'number' && rate > 0 ? rate : -1;
      }
      case 'blockchain.headers.subscribe': {
        session.headers = true;
        session.lastTip = claimedTip();
        return { height: claimedTip(), hex: Buffer.from(headerAt(claimedTip())!).toString('hex') };
      }
      case 'blockchain.block.header': {
        const h = num(params[0], 'height');
        const header = headerAt(h);
        if (!header) throw new RpcFailure(1, `height ${h} out of range`);
        return Buffer.from(header).toString('hex');
      }
      case 'blockchain.block.headers': {
        const start = num(params[0], 'start_height');
        const count = Math.min(num(params[1], 'count'), MAX_HEADERS);
        const out: Uint8Array[] = [];
        for (let h = start; h < start + count; h++) {
          const header = headerAt(h);
          if (!header) break;
          out.push(header);
        }
        return { count: out.length, hex: Buffer.concat(out).toString('hex'), max: MAX_HEADERS };
      }
      case 'blockchain.scripthash.subscribe': {
        const sh = hash(params[0], 'scripthash');
        if (limits.subscriptions !== undefined && !session.scripthashes.has(sh) && session.scripthashes.size >= limits.subscriptions) {
          throw new RpcFailure(-32600, `subscription limit of ${limits.subscriptions} reached`);
        }
        const status = statusOf(sh);
        session.scripthashes.set(sh, status);
        return status;
      }
      case 'blockchain.scripthash.unsubscribe':
        return session.scripthashes.delete(hash(params[0], 'scripthash'));
      case 'blockchain.scripthash.get_history':
        return historyOf(hash(params[0], 'scripthash')).map((i) =>
          i.height > 0 ? { tx_hash: i.txid, height: i.height } : { tx_hash: i.txid, height: i.height, fee: Number(i.fee ?? 0n) },
        );
      case 'blockchain.scripthash.get_mempool':
        return historyOf(hash(params[0], 'scripthash'))
          .filter((i) => i.height <= 0)
          .map((i) => ({ tx_hash: i.txid, height: i.height, fee: Number(i.fee ?? 0n) }));
      case 'blockchain.scripthash.listunspent': {
        const sha = Buffer.from(hash(params[0], 'scripthash'), 'hex').reverse().toString('hex');
        return index.unspent(sha).map((u) => ({ tx_hash: u.txid, tx_pos: u.vout, height: u.height, value: Number(u.value) }));
      }
      case 'blockchain.scripthash.get_balance': {
        const sha = Buffer.from(hash(params[0], 'scripthash'), 'hex').reverse().toString('hex');
        let confirmed = 0n;
        let unconfirmed = 0n;
        for (const u of index.unspent(sha)) if (u.height > 0) confirmed += u.value;
        else unconfirmed += u.value;
        return { confirmed: Number(confirmed), unconfirmed: Number(unconfirmed) };
      }
      case 'blockchain.transaction.get': {
        const txid = hash(params[0], 'tx_hash');
        if (params[1]) throw new RpcFailure(-32602, 'verbose transactions are not served');
        const raw = rawTx(txid);
        if (!raw) throw new RpcFailure(2, `No such mempool or blockchain transaction. Use gettransaction for wallet transactions.`);
        return Buffer.from(raw).toString('hex');
      }
      case 'blockchain.transaction.get_merkle':
        return merkleOf(hash(params[0], 'tx_hash'), num(params[1], 'height'));
      case 'blockchain.transaction.broadcast': {
        if (typeof params[0] !== 'string') throw new RpcFailure(-32602, 'invalid raw_tx');
        try {
          const txid = await node.sendAndWait(params[0]);
          await index.refresh();
          return txid;
        } catch (err) {
          throw new RpcFailure(1, `the transaction was rejected by network rules.\n\n${(err as Error).message}`);
        }
      }
      default:
        throw new RpcFailure(-32601, `unknown method "${method}"`);
    }
  }

  const onConnection = (socket: Socket) => {
    const session: Session = { socket, buffer: '', negotiated: false, scripthashes: new Map(), headers: false, lastTip: -1, requests: 0 };
    sessions.add(session);
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('close', () => sessions.delete(session));
    let queue = Promise.resolve();
    socket.on('data', (chunk: string) => {
      session.buffer += chunk;
      let nl: number;
      while ((nl = session.buffer.indexOf('\n')) >= 0) {
        const line = session.buffer.slice(0, nl);
        session.buffer = session.buffer.slice(nl + 1);
        if (!line.trim()) continue;
        queue = queue.then(() => answer(session, line));
      }
    });
  };

  async function answer(session: Session, line: string): Promise<void> {
    if (session.socket.destroyed) return;
    let msg: { id?: unknown; method?: unknown; params?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      session.socket.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'invalid JSON' } }) + '\n');
      return;
    }
    if (!throttle.admit()) {
      if (throttle.settings?.refuse === 'busy') {
        // ElectrumX/Fulcrum: the session's cost is spent; the request is refused, the session stays.
        session.socket.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, error: { code: -101, message: 'excessive resource usage' } }) + '\n');
        return;
      }
      // Over the limit: a public server drops the session.
      session.socket.destroy();
      return;
    }
    session.requests++;
    const id = msg.id ?? null;
    try {
      const result = await handle(session, String(msg.method), Array.isArray(msg.params) ? msg.params : []);
      session.socket.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
    } catch (err) {
      const e = err instanceof RpcFailure ? err : new RpcFailure(-32603, (err as Error).message);
      session.socket.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: e.code, message: e.message } }) + '\n');
    }
  }

  // Pushes: after each refresh, new tips to header subscribers and changed statuses to script subscribers.
  let notifying = false;
  const notifier = setInterval(async () => {
    if (notifying || sessions.size === 0) return;
    notifying = true;
    try {
      await index.refresh();
      for (const s of sessions) {
        if (s.headers && claimedTip() !== s.lastTip) {
          s.lastTip = claimedTip();
          s.socket.write(
            JSON.stringify({ jsonrpc: '2.0', method: 'blockchain.headers.subscribe', params: [{ height: s.lastTip, hex: Buffer.from(headerAt(s.lastTip)!).toString('hex') }] }) + '\n',
          );
        }
        for (const [sh, old] of s.scripthashes) {
          const now = statusOf(sh);
          if (now !== old) {
            s.scripthashes.set(sh, now);
            s.socket.write(JSON.stringify({ jsonrpc: '2.0', method: 'blockchain.scripthash.subscribe', params: [sh, now] }) + '\n');
          }
        }
      }
    } catch {
      // The node is stopping; the next tick tries again.
    } finally {
      notifying = false;
    }
  }, opts.notifyMs ?? 100);

  const server: Server = opts.tls ? createTlsServer({ key: opts.tls.key, cert: opts.tls.cert }, onConnection) : createTcpServer(onConnection);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return {
    url: `${opts.tls ? 'ssl' : 'tcp'}://127.0.0.1:${addr.port}`,
    host: '127.0.0.1',
    port: addr.port,
    lies,
    throttle,
    limits,
    subscribedCount: () => [...sessions].reduce((n, s) => n + s.scripthashes.size, 0),
    calls,
    scriptAsks,
    headerRequests,
    dropConnections: () => {
      for (const s of sessions) s.socket.destroy();
    },
    close: async () => {
      clearInterval(notifier);
      for (const s of sessions) s.socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
