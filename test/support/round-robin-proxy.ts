// A tiny HTTP load balancer for tests: each request goes to the next backend; a backend that refuses the
// connection (killed) or does not answer in time (stopped) is skipped, like an upstream marked down.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A running proxy in front of several `satgate start` processes. */
export interface RoundRobinProxy {
  url: string;
  /** Which backend answered each request, in order. */
  served: string[];
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port; `backends` may change while it runs. */
export async function startRoundRobinProxy(backends: () => string[], timeoutMs = 1_000): Promise<RoundRobinProxy> {
  let next = 0;
  const served: string[] = [];
  const forward = (target: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const u = new URL(req.url ?? '/', target);
      const out = request(u, { method: req.method, headers: { ...req.headers, host: u.host }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      out.on('timeout', () => out.destroy(new Error('upstream timeout')));
      out.on('error', reject);
      out.end(body);
    });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const list = backends();
      for (let i = 0; i < list.length; i++) {
        const target = list[next++ % list.length]!;
        try {
          const r = await forward(target, req, body);
          served.push(target);
          res.writeHead(r.status, r.headers);
          res.end(r.body);
          return;
        } catch {
          // down: try the next one
        }
      }
      res.writeHead(502).end('no backend answered');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
