// A ZeroMQ publisher speaking the real ZMTP 3.0 wire format over a real TCP socket, standing in for Bitcoin
// Core's `-zmqpub*` endpoints (Core is not installable here). `relayRegtest` feeds it from the real bcoin
// regtest node the way Core publishes: `rawtx` for each transaction accepted into the mempool and for each
// transaction of a connected block, then `hashblock`; each message is [topic, body, uint32 LE sequence].
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { FrameReader, greetingProblem, readCommand, zmtpCommand, zmtpFrame, zmtpGreeting } from '../../src/chain/zmq-subscriber.ts';

interface Peer {
  socket: Socket;
  ready: boolean;
  topics: string[];
}

/** A PUB endpoint: accepts subscribers, records their subscriptions, sends multipart messages to matching ones. */
export class ZmqTestPublisher {
  private readonly peers = new Set<Peer>();
  private readonly sequences = new Map<string, number>();
  private readonly subscribedWaiters: Array<{ topic: string; resolve: () => void }> = [];
  /** Every subscription message received, in order (topic prefixes). */
  readonly subscriptions: string[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ZmqTestPublisher> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const pub = new ZmqTestPublisher(server, `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (s) => pub.accept(s));
    return pub;
  }

  private accept(socket: Socket): void {
    const peer: Peer = { socket, ready: false, topics: [] };
    this.peers.add(peer);
    const reader = new FrameReader();
    let greeted = false;
    socket.write(zmtpGreeting());
    socket.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      if (!greeted) {
        const g = reader.take(64);
        if (!g) return;
        if (greetingProblem(g)) return socket.destroy();
        greeted = true;
      }
      for (let f = reader.frame(); f; f = reader.frame()) {
        if (f.flags & 0x04) {
          const cmd = readCommand(f.body);
          if (cmd.name === 'READY' && !peer.ready) {
            if (cmd.properties.get('socket-type')?.toString('ascii') !== 'SUB') {
              socket.end(zmtpCommand('ERROR'));
              return;
            }
            peer.ready = true;
            socket.write(zmtpCommand('READY', { 'Socket-Type': 'PUB' }));
          }
          continue;
        }
        // A subscription message: 0x01 subscribes to the prefix after it, 0x00 cancels it.
        const topic = f.body.subarray(1).toString('utf8');
        if (f.body[0] === 1) {
          peer.topics.push(topic);
          this.subscriptions.push(topic);
          for (const w of this.subscribedWaiters.splice(0)) {
            if (w.topic === topic) w.resolve();
            else this.subscribedWaiters.push(w);
          }
        } else if (f.body[0] === 0) peer.topics = peer.topics.filter((t) => t !== topic);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => this.peers.delete(peer));
  }

  /** Resolves once some subscriber has subscribed to `topic` (now or later). */
  subscribed(topic: string): Promise<void> {
    if (this.subscriptions.includes(topic)) return Promise.resolve();
    return new Promise((resolve) => this.subscribedWaiters.push({ topic, resolve }));
  }

  /** Forgets the subscriptions seen so far (to wait for a resubscription after a reconnect). */
  resetSubscriptions(): void {
    this.subscriptions.length = 0;
  }

  /** Sends [topic, body, sequence] to every subscriber whose prefixes match; returns how many got it. */
  publish(topic: string, body: Uint8Array): number {
    const seq = this.sequences.get(topic) ?? 0;
    this.sequences.set(topic, seq + 1);
    const seqBytes = Buffer.alloc(4);
    seqBytes.writeUInt32LE(seq);
    const message = Buffer.concat([
      zmtpFrame(Buffer.from(topic, 'utf8'), 0x01),
      zmtpFrame(Buffer.from(body), 0x01),
      zmtpFrame(seqBytes, 0),
    ]);
    let sent = 0;
    for (const p of this.peers) {
      if (!p.ready || !p.topics.some((t) => topic.startsWith(t))) continue;
      p.socket.write(message);
      sent++;
    }
    return sent;
  }

  /** Drops every subscriber's connection (they reconnect on their own). */
  dropConnections(): void {
    for (const p of this.peers) p.socket.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** Publishes what a Bitcoin Core node with `-zmqpubrawtx` and `-zmqpubhashblock` would, from a bcoin regtest node. */
export function relayRegtest(pub: ZmqTestPublisher, node: { onMempoolTx(l: (txid: string, raw: Uint8Array) => void): void; onBlockConnected(l: (hash: string, txs: Uint8Array[]) => void): void }): void {
  node.onMempoolTx((_txid, raw) => pub.publish('rawtx', raw));
  node.onBlockConnected((hash, txs) => {
    for (const raw of txs) pub.publish('rawtx', raw);
    pub.publish('hashblock', Buffer.from(hash, 'hex'));
  });
}
