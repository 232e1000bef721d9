// A ZeroMQ SUB socket for Bitcoin Core's ZMQ notifications (issue 16), written against the ZMTP 3.0 wire
// protocol (rfc.zeromq.org/spec/23) with the NULL mechanism, which is all Core's `-zmqpub*` endpoints speak.
// Why by hand: the npm ZMQ libraries are bindings to libzmq (`zeromq` needs an install script that builds or
// downloads a native addon; `zmq` is its unmaintained ancestor) or speak ZMTP over WebSocket only (`jszmq`);
// see docs/decisions.md. Only what a subscriber needs is here: the greeting, the READY handshake, subscriptions
// as messages (the ZMTP 3.0 form, which every libzmq 4 publisher accepts) and multipart messages in.
//
// Messages are hints to the watcher, which keeps polling as the safety net: a lost connection is retried with
// backoff, and `onReconnect` lets the caller poll once, since messages sent meanwhile were lost.
import { connect, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { parseZmqUrl } from '../config/zmq-url.ts';

/** One multipart message as Bitcoin Core sends it: topic, body, then (in its third part) a sequence number. */
export interface ZmqMessage {
  topic: string;
  body: Buffer;
  /** Core's little-endian uint32 per-topic sequence number, when the message has a third part of 4 bytes. */
  sequence: number | null;
}

/** A live subscription; `close` ends it and stops reconnecting. */
export interface ZmqSubscription {
  close(): void;
}

export interface ZmqSubscribeOptions {
  /** `tcp://host:port`, as in Core's `-zmqpubrawtx=tcp://127.0.0.1:28332`. */
  url: string;
  /** Topic prefixes to subscribe to (ZeroMQ matches by prefix). */
  topics: string[];
  onMessage(message: ZmqMessage): void;
  /** Called after each handshake that follows a lost connection (messages sent meanwhile are gone). */
  onReconnect?(): void;
  log: Pick<Logger, 'debug' | 'warn'>;
  /** First reconnection delay; doubles up to 30 s (default 500 ms). */
  retryMs?: number;
}

/** The greeting's fixed parts (ZMTP 3.0 section "The greeting"). */
const GREETING_LENGTH = 64;
/** Largest frame accepted: a Core `rawtx` is at most a block's 4 MB; anything larger is not a Core publisher. */
const MAX_FRAME = 16 * 1024 * 1024;
const FLAG_MORE = 0x01;
const FLAG_LONG = 0x02;
const FLAG_COMMAND = 0x04;

/** Our greeting: signature, version 3.0, mechanism NULL, not the server. */
export function zmtpGreeting(): Buffer {
  const g = Buffer.alloc(GREETING_LENGTH);
  g[0] = 0xff;
  g[9] = 0x7f;
  g[10] = 3;
  g[11] = 0;
  g.write('NULL', 12, 'ascii');
  return g;
}

/** Checks a peer's greeting; returns why it is unusable, or null. */
export function greetingProblem(g: Buffer): string | null {
  if (g[0] !== 0xff || (g[9]! & 0x01) !== 0x01) return 'not a ZMTP peer (bad signature)';
  if (g[10]! < 3) return `ZMTP ${g[10]}.x is too old (3.0 or newer needed)`;
  const mechanism = g.subarray(12, 32).toString('ascii').replace(/\0+$/, '');
  if (mechanism !== 'NULL') return `security mechanism ${mechanism} is not supported (Core publishes with NULL)`;
  return null;
}

/** One frame, with the short (1-byte) or long (8-byte) size as its length needs. */
export function zmtpFrame(body: Buffer, flags: number): Buffer {
  if (body.length <= 255) return Buffer.concat([Buffer.from([flags, body.length]), body]);
  const head = Buffer.alloc(9);
  head[0] = flags | FLAG_LONG;
  head.writeBigUInt64BE(BigInt(body.length), 1);
  return Buffer.concat([head, body]);
}

/** A command frame's body: name, then properties (name, 4-byte big-endian length, value). */
export function zmtpCommand(name: string, properties: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = [Buffer.from([name.length]), Buffer.from(name, 'ascii')];
  for (const [key, value] of Object.entries(properties)) {
    const v = Buffer.from(value, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(v.length);
    parts.push(Buffer.from([key.length]), Buffer.from(key, 'ascii'), len, v);
  }
  return zmtpFrame(Buffer.concat(parts), FLAG_COMMAND);
}

/** Reads a command body into its name and properties (property names compared case-insensitively). */
export function readCommand(body: Buffer): { name: string; properties: Map<string, Buffer> } {
  const nameLength = body[0] ?? 0;
  const name = body.subarray(1, 1 + nameLength).toString('ascii');
  const properties = new Map<string, Buffer>();
  let at = 1 + nameLength;
  if (name !== 'READY') return { name, properties };
  while (at < body.length) {
    const keyLength = body[at]!;
    const key = body.subarray(at + 1, at + 1 + keyLength).toString('ascii').toLowerCase();
    at += 1 + keyLength;
    if (at + 4 > body.length) throw new Error('truncated READY property');
    const valueLength = body.readUInt32BE(at);
    at += 4;
    if (at + valueLength > body.length) throw new Error('truncated READY property');
    properties.set(key, body.subarray(at, at + valueLength));
    at += valueLength;
  }
  return { name, properties };
}

/**
 * Incremental frame reader: feed it bytes as they arrive, take whole frames out. Keeps no more than one
 * partial frame.
 */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
  }

  /** The first `n` bytes when they are all there (the greeting). */
  take(n: number): Buffer | null {
    if (this.buf.length < n) return null;
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The next whole frame, or null until more bytes arrive. Throws on a frame over the size limit. */
  frame(): { flags: number; body: Buffer } | null {
    if (this.buf.length < 2) return null;
    const flags = this.buf[0]!;
    let size: number;
    let head: number;
    if (flags & FLAG_LONG) {
      if (this.buf.length < 9) return null;
      const big = this.buf.readBigUInt64BE(1);
      if (big > BigInt(MAX_FRAME)) throw new Error(`frame of ${big} bytes is over the ${MAX_FRAME}-byte limit`);
      size = Number(big);
      head = 9;
    } else {
      size = this.buf[1]!;
      head = 2;
    }
    if (this.buf.length < head + size) return null;
    const body = this.buf.subarray(head, head + size);
    this.buf = this.buf.subarray(head + size);
    return { flags, body };
  }
}

/** Connects, handshakes, subscribes and delivers messages; reconnects with backoff until closed. */
export function subscribeZmq(opts: ZmqSubscribeOptions): ZmqSubscription {
  const { host, port } = parseZmqUrl(opts.url);
  const firstDelay = opts.retryMs ?? 500;
  let delay = firstDelay;
  let closed = false;
  let socket: Socket | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let everReady = false;

  const open = () => {
    if (closed) return;
    const reader = new FrameReader();
    let stage: 'greeting' | 'ready' | 'messages' = 'greeting';
    let parts: Buffer[] = [];
    const s = connect({ host, port });
    socket = s;
    s.setNoDelay(true);
    const fail = (why: string) => {
      opts.log.warn({ zmq: opts.url, err: why }, 'ZeroMQ notifications: connection dropped; polling meanwhile');
      s.destroy();
    };
    s.on('connect', () => s.write(zmtpGreeting()));
    s.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      try {
        if (stage === 'greeting') {
          const g = reader.take(GREETING_LENGTH);
          if (!g) return;
          const problem = greetingProblem(g);
          if (problem) return fail(problem);
          s.write(zmtpCommand('READY', { 'Socket-Type': 'SUB' }));
          stage = 'ready';
        }
        for (let f = reader.frame(); f; f = reader.frame()) {
          if (f.flags & FLAG_COMMAND) {
            const cmd = readCommand(f.body);
            if (cmd.name === 'ERROR') return fail(`peer refused: ${f.body.subarray(7).toString('utf8')}`);
            if (stage === 'ready') {
              if (cmd.name !== 'READY') return fail(`expected READY, got ${cmd.name}`);
              const type = cmd.properties.get('socket-type')?.toString('ascii');
              if (type !== 'PUB' && type !== 'XPUB') return fail(`peer is a ${type ?? 'socket of no type'}, not a publisher`);
              // ZMTP 3.0 subscriptions are messages: 0x01 then the topic prefix.
              for (const topic of opts.topics) s.write(zmtpFrame(Buffer.concat([Buffer.from([1]), Buffer.from(topic, 'utf8')]), 0));
              stage = 'messages';
              delay = firstDelay;
              opts.log.debug({ zmq: opts.url, topics: opts.topics }, 'subscribed to ZeroMQ notifications');
              if (everReady) opts.onReconnect?.();
              everReady = true;
            }
            continue; // PING and other commands need nothing from a subscriber that asked for no heartbeats
          }
          if (stage !== 'messages') return fail('message before the handshake finished');
          parts.push(f.body);
          if (f.flags & FLAG_MORE) continue;
          const [topic, body, seq] = parts;
          parts = [];
          if (topic === undefined) continue;
          opts.onMessage({
            topic: topic.toString('utf8'),
            body: body ?? Buffer.alloc(0),
            sequence: seq && seq.length === 4 ? seq.readUInt32LE(0) : null,
          });
        }
      } catch (err) {
        fail(err instanceof Error ? err.message : String(err));
      }
    });
    s.on('error', (err) => opts.log.debug({ zmq: opts.url, err: err.message }, 'ZeroMQ socket error'));
    s.on('close', () => {
      if (socket === s) socket = null;
      if (closed) return;
      retryTimer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 30_000);
    });
  };
  open();
  return {
    close: () => {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      socket?.destroy();
    },
  };
}
