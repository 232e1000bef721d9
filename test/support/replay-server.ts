// A local HTTP server (node:http, port 0) that replays recorded responses at given
// paths, for tests of anything that speaks to an external HTTP API.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

/** Folder of recorded fixtures (`test/fixtures`). */
export const FIXTURES_DIR = resolve(import.meta.dirname, '../fixtures');

/** Reads a fixture file as text, path relative to `test/fixtures` (e.g. "rates/kraken-ticker.json"). */
export function fixtureText(relativePath: string): string {
  return readFileSync(join(FIXTURES_DIR, relativePath), 'utf8');
}

/** How one path is answered. Exactly one of `file`, `body`, `handler` is normally set. */
export interface ReplayRoute {
  /** Fixture path relative to `test/fixtures`, sent as the body. */
  file?: string;
  /** Body to send: a string as is, anything else as JSON. */
  body?: unknown;
  /** Status code (default 200). */
  status?: number;
  /** Extra response headers (content-type defaults to application/json). */
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer the request yourself instead. */
  handler?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** A running replay server. */
export interface ReplayServer {
  /** Base URL, e.g. "http://127.0.0.1:40123" (no trailing slash). */
  url: string;
  /** Every request received, in order (`url` includes the query string). */
  requests: { method: string; url: string }[];
  /** Adds or replaces the route for a path (with or without a query string). */
  route(path: string, route: ReplayRoute): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a replay server. A request is matched first on its full path with query string,
 * then on the path alone; anything else gets 404 with a JSON error body.
 */
export async function startReplayServer(routes: Record<string, ReplayRoute> = {}): Promise<ReplayServer> {
  const table = new Map(Object.entries(routes));
  const requests: ReplayServer['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', url });
    const route = table.get(url) ?? table.get(url.split('?')[0] ?? url);
    const answer = (): void => {
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `no replay route for ${url}` }));
        return;
      }
      if (route.handler) {
        route.handler(req, res);
        return;
      }
      const body = route.file !== undefined
        ? fixtureText(route.file)
        : typeof route.body === 'string' ? route.body : route.body === undefined ? '' : JSON.stringify(route.body);
      res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers });
      res.end(body);
    };
    if (route?.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) answer();
      }, route.delayMs);
      timers.add(t);
    } else {
      answer();
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route(path, route) {
      table.set(path, route);
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
