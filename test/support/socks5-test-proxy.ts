// A minimal SOCKS5 proxy (RFC 1928, no authentication, CONNECT only) for tests: it records the host
// names it was asked for, which shows the client let the proxy resolve them (as Tor needs for .onion).
import { createServer, connect, type Socket } from 'node:net';

export interface Socks5TestProxy {
  port: number;
  /** `host:port` of each CONNECT, as the client sent it. */
  connects: string[];
  close(): Promise<void>;
}

export async function startSocks5TestProxy(resolve: (host: string) => string = (h) => h): Promise<Socks5TestProxy> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    let stage: 'greeting' | 'request' | 'open' = 'greeting';
    let buf = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (stage === 'open') return;
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
        buf = buf.subarray(2 + buf[1]!);
        client.write(Buffer.from([5, 0]));
        stage = 'request';
      }
      if (stage === 'request') {
        if (buf.length < 5) return;
        const atyp = buf[3]!;
        let host: string;
        let at: number;
        if (atyp === 3) {
          const len = buf[4]!;
          if (buf.length < 5 + len + 2) return;
          host = buf.subarray(5, 5 + len).toString('utf8');
          at = 5 + len;
        } else if (atyp === 1) {
          if (buf.length < 10) return;
          host = [...buf.subarray(4, 8)].join('.');
          at = 8;
        } else {
          client.destroy();
          return;
        }
        const port = buf.readUInt16BE(at);
        const rest = buf.subarray(at + 2);
        connects.push(`${host}:${port}`);
        stage = 'open';
        client.pause();
        const upstream = connect({ host: resolve(host), port }, () => {
          client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
          if (rest.length) upstream.write(rest);
          client.pipe(upstream);
          upstream.pipe(client);
          client.resume();
        });
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return {
    port: addr.port,
    connects,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
