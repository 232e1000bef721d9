// The first thing `satgate start` does (issue 39): take the port with a bare HTTP server, so /health answers within
// moments of the start with an honest "starting", while the modules load, the database is migrated and the app is
// built. The Fastify app is then built on this very server (Fastify's serverFactory) and takes over its requests
// once ready: no second listen, no moment when the port is free or refuses connections.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Where a start is, as /health says while it is starting. */
export type StartPhase = 'loading' | 'migrating the database' | 'building the app';

// Fastify's defaults for the server it would have made itself (lib/server.js): the app behaves the same on ours.
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export class EarlyListener {
  readonly server: Server;
  phase: StartPhase = 'loading';
  private app: Handler | null = null;
  private ready: Handler | null = null;

  constructor(private readonly version: string) {
    // As the app's own options: a request without Host is answered by the app's face, not refused by Node.
    this.server = createServer({ requireHostHeader: false }, (req, res) => (this.ready ? this.ready(req, res) : this.starting(req, res)));
    this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  }

  /** Binds host:port; rejects with listen's error (EADDRINUSE, EACCES, ...), leaving nothing bound. */
  listen(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => reject(err);
      this.server.once('error', failed);
      this.server.listen({ host, port, exclusive: true }, () => {
        this.server.off('error', failed);
        resolve();
      });
    });
  }

  /** For Fastify's `serverFactory`: the app's request handler, used once {@link open} is called. */
  readonly serverFactory = (handler: Handler): Server => {
    this.app = handler;
    return this.server;
  };

  /** Hands every request from now on to the app (call once the app is ready). */
  open(): void {
    if (!this.app) throw new Error('the app was not built on the early listener (serverFactory)');
    this.ready = this.app;
  }

  /** Stops listening and ends every connection (Fastify closes a server it did not listen on itself only in part). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private starting(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    res.setHeader('Retry-After', '1');
    res.setHeader('Cache-Control', 'no-store');
    if (path === '/health') {
      res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ status: 'starting', version: this.version, startup: this.phase }));
      return;
    }
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`satgate is starting (${this.phase}); try again in a moment\n`);
  }
}
