import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from './context.ts';

/** Serves Prometheus metrics at GET /metrics: process defaults, HTTP requests, chain, rates and outbox gauges. */
export async function metricsRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'satgate_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  // A callback hook, not an async one: it runs for every request, and an async hook costs a promise and a turn.
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL: paths carry keys and references, which must not become labels.
    requests.inc({ method: request.method, route: request.routeOptions.url ?? 'unknown', status: String(reply.statusCode) });
    done();
  });

  new Gauge({
    name: 'satgate_chain_tip_height',
    help: 'Height of the last block the watcher processed',
    labelNames: ['chain'] as const,
    registers: [registry],
    collect() {
      for (const c of ctx.chains.all()) {
        const h = c.watcher.health();
        if (h.tipHeight !== null) this.set({ chain: c.id }, h.tipHeight);
      }
    },
  });
  new Gauge({
    name: 'satgate_chain_stalled',
    help: '1 when the watcher is stalled (node silent or tip not moving)',
    labelNames: ['chain'] as const,
    registers: [registry],
    collect() {
      for (const c of ctx.chains.all()) this.set({ chain: c.id }, c.watcher.health().stalled ? 1 : 0);
    },
  });
  new Gauge({
    name: 'satgate_chain_watched_scripts',
    help: 'Issued addresses the watcher matches outputs against',
    labelNames: ['chain'] as const,
    registers: [registry],
    collect() {
      for (const c of ctx.chains.all()) this.set({ chain: c.id }, c.watched.size);
    },
  });
  // Light chain sources (Electrum, Esplora): the request budget, refusals, lies and the cold sweep.
  const lightGauge = (name: string, help: string, read: (h: Record<string, unknown>) => Array<[Record<string, string>, number]>) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'source', 'tier'] as const,
      registers: [registry],
      collect() {
        for (const c of ctx.chains.all()) {
          const h = c.watcher.health();
          if (h.source !== 'electrum' && h.source !== 'esplora') continue;
          for (const [labels, value] of read(h)) this.set({ chain: c.id, source: String(h.source), ...labels }, value);
        }
      },
    });
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  lightGauge('satgate_chain_source_requests_total', 'Requests sent to the light server since start', (h) => [[{}, num(h.requests)]]);
  lightGauge('satgate_chain_source_requests_last_minute', 'Requests sent to the light server in the last 60 seconds', (h) => [[{}, num(h.requestsLastMinute)]]);
  lightGauge('satgate_chain_source_refusals_total', 'HTTP 429/5xx answers and dropped connections from the light server', (h) => [[{}, num(h.refusals)]]);
  lightGauge('satgate_chain_source_lies_total', 'Claims of the light server that did not verify (ignored)', (h) => [[{}, num(h.lies)]]);
  lightGauge('satgate_chain_source_verified', '1 when our verified header chain reaches the server tip and no lie was seen in the last hour', (h) => [[{}, h.verified ? 1 : 0]]);
  lightGauge('satgate_chain_watched_by_tier', 'Watched addresses per tier (hot every poll, warm less often, cold in a sweep)', (h) => {
    const t = (h.tiers ?? {}) as Record<string, unknown>;
    return (['hot', 'warm', 'cold'] as const).map((tier) => [{ tier }, num(t[tier])]);
  });
  lightGauge('satgate_chain_cold_sweep_done', 'Cold addresses asked about in the current sweep round', (h) => [[{}, num((h.coldSweep as Record<string, unknown> | undefined)?.done)]]);
  // Several light servers (a comma-separated list): each server's requests, refusals, lagging, omissions and bad blocks.
  const serverGauge = (name: string, help: string, read: (m: Record<string, unknown>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'source', 'server'] as const,
      registers: [registry],
      collect() {
        for (const c of ctx.chains.all()) {
          const h = c.watcher.health();
          if (!Array.isArray(h.servers)) continue;
          for (const m of h.servers as Array<Record<string, unknown>>) this.set({ chain: c.id, source: String(h.source), server: String(m.url) }, read(m));
        }
      },
    });
  serverGauge('satgate_chain_source_server_requests_total', 'Requests sent to this light server since start', (m) => num(m.requests));
  serverGauge('satgate_chain_source_server_refusals_total', 'Refusals (-101, HTTP 429/5xx, dropped connections) from this light server', (m) => num(m.refusals));
  serverGauge('satgate_chain_source_server_lagging', '1 when this light server is behind the best tip or on another branch (asked no histories)', (m) => (m.lagging ? 1 : 0));
  serverGauge('satgate_chain_source_server_backing_off', '1 while satgate backs off this light server after a refusal', (m) => (m.backingOffUntil !== null && m.backingOffUntil !== undefined ? 1 : 0));
  serverGauge('satgate_chain_source_server_omissions_total', 'Proven transactions this light server left out of a history (it is asked less)', (m) => num(m.omissions));
  serverGauge('satgate_chain_source_server_bad_blocks_total', 'Whole blocks from this light server that are not the block our verified header names (another server is asked)', (m) => num(m.badBlocks));
  // mempool.space websocket beside an Esplora source: whether it is open, how many hot addresses it tracks.
  const pushOf = (h: Record<string, unknown>) => (h.push ?? null) as Record<string, unknown> | null;
  const pushGauge = (name: string, help: string, read: (p: Record<string, unknown>) => number) =>
    lightGauge(name, help, (h) => {
      const p = pushOf(h);
      return p ? [[{}, read(p)]] : [];
    });
  pushGauge('satgate_chain_source_push_connected', '1 when the mempool websocket is open (pushes for tracked hot addresses)', (p) => (p.state === 'open' ? 1 : 0));
  pushGauge('satgate_chain_source_push_tracked', 'Hot addresses the mempool websocket tracks now', (p) => num(p.tracked));
  pushGauge('satgate_chain_source_push_over_cap', 'Hot addresses beyond the websocket cap, left to polling', (p) => num(p.overCap));
  pushGauge('satgate_chain_source_push_messages_total', 'Pushes naming tracked addresses (each only wakes a verified poll)', (p) => num(p.pushes));
  pushGauge('satgate_chain_source_push_reconnects_total', 'Times the mempool websocket was reopened after a drop', (p) => num(p.reconnects));

  new Gauge({
    name: 'satgate_rates_available',
    help: '1 when current (non-stale) exchange rates are available',
    registers: [registry],
    async collect() {
      const report = await ctx.health.run();
      this.set(report.components.rates?.ok ? 1 : 0);
    },
  });
  new Gauge({
    name: 'satgate_outbox_pending',
    help: 'Notifications (webhooks and e-mails) waiting to be delivered',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await ctx.db.kysely
        .selectFrom('outbox')
        .select(['kind', (eb) => eb.fn.countAll<bigint>().as('n')])
        .where('state', '=', 'pending')
        .groupBy('kind')
        .execute();
      this.set({ kind: 'webhook' }, 0);
      this.set({ kind: 'email' }, 0);
      for (const r of rows) this.set({ kind: r.kind }, Number(r.n));
    },
  });

  new Gauge({
    name: 'satgate_singleton_holder',
    help: '1 when this process holds the singleton lease (chain watchers, rate refresher, sweepers run here)',
    registers: [registry],
    async collect() {
      const s = await ctx.singleton.status();
      this.set(s.state === 'holder' || s.state === 'single' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'satgate_singleton_lease_age_seconds',
    help: 'Time since the singleton lease holder (whichever process) last renewed it; absent when nobody holds it',
    registers: [registry],
    async collect() {
      const s = await ctx.singleton.status();
      this.reset();
      if (s.leaseAgeMs !== null) this.set(s.leaseAgeMs / 1000);
    },
  });
  new Gauge({
    name: 'satgate_singleton_held_since_seconds',
    help: 'Unix time at which the current holder took the singleton lease',
    registers: [registry],
    async collect() {
      const s = await ctx.singleton.status();
      this.reset();
      if (s.since !== null) this.set(s.since / 1000);
    },
  });
  new Gauge({
    name: 'satgate_singleton_lease_lost',
    help: '1 when this process held the singleton lease, lost it and does not hold it again',
    registers: [registry],
    async collect() {
      this.set((await ctx.singleton.status()).state === 'lost' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'satgate_singleton_fenced_writes_refused',
    help: 'Writes of singleton work refused because the lease was gone (fencing), since start',
    registers: [registry],
    async collect() {
      this.set((await ctx.singleton.status()).fencedWritesRefused);
    },
  });

  app.get('/metrics', { schema: { summary: 'Prometheus metrics', tags: ['operations'], hide: true } }, async (_request, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
