// A JSON-RPC proxy in front of the regtest node that can refuse chosen methods, the way an unreachable
// or failing node would: tests use it to hold a server between storing a transaction and broadcasting it.
import { createServer, type Server } from 'node:http';

/** A running proxy; `refuse` lists the RPC methods answered with an error. */
export interface RpcGate {
  url: string;
  refuse: Set<string>;
  /** How many calls of each method reached the node. */
  forwarded: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a proxy forwarding to `target` (a node URL with credentials in it). */
export async function startRpcGate(target: string): Promise<RpcGate> {
  const upstream = new URL(target);
  const auth = 'Basic ' + Buffer.from(`${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`).toString('base64');
  upstream.username = '';
  upstream.password = '';
  const refuse = new Set<string>();
  const forwarded = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let method = '';
      let id: unknown = null;
      try {
        ({ method, id } = JSON.parse(body) as { method: string; id: unknown });
      } catch {
        // forwarded as is
      }
      if (refuse.has(method)) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: null, error: { code: -1, message: 'refused by the test gate' }, id }));
        return;
      }
      forwarded.set(method, (forwarded.get(method) ?? 0) + 1);
      fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    refuse,
    forwarded,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
