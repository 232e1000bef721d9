// `satgate status`: per network, which chain source it reads, its tip, lag, whether it is verified and its
// last error. Asked of the running server's GET /health (the watchers' own view, so the two never disagree);
// when no server answers, read from the configuration and the database (what was last processed and stored),
// with the live-only fields (server tip, lag, connection, errors) unknown.
import type { Config } from '../config/config.ts';
import type { ChainEndpoint } from '../config/chain-endpoint.ts';
import { dbTargetFromConfig, missingDatabaseFile, openDb } from '../db/database.ts';
import type { ChainId } from '../chain/chain-id.ts';
import { HeaderStore } from '../chain/light/header-store.ts';

export type SourceName = 'rpc' | 'electrum' | 'esplora' | 'devchain';

/** One network's chain source, as `satgate status` reports it (field names as in /health's `chain_<mode>`). */
export interface ChainStatus {
  chain: ChainId;
  network: string;
  source: SourceName;
  /** Where, without credentials. */
  sourceUrl: string | null;
  /** The tip every watched address has been checked at (processed). */
  tipHeight: number | null;
  tipHash: string | null;
  /** Light sources: the highest verified header (may run ahead of tipHeight while addresses are checked). */
  headerHeight: number | null;
  /** The source's own best height, and how far tipHeight is behind it. */
  serverTipHeight: number | null;
  lag: number | null;
  /** Light: our header chain reaches the server's tip and it told no lie in the last hour; node: always (it validates). */
  verified: boolean | null;
  connected: boolean | null;
  /** The watcher's health (false: stalled, a recent lie, or failing polls). */
  ok: boolean | null;
  lies: number | null;
  error: string | null;
}

export interface StatusReport {
  /** Whether a running server answered (else everything came from the configuration and the database). */
  running: boolean;
  /** The /health URL asked. */
  url: string;
  /** The server's overall status (ok, degraded, unhealthy), when running. */
  status: string | null;
  chains: ChainStatus[];
}

/** Where the server configured by `config` listens (the address it binds, loopback for a wildcard). */
export function localServerUrl(config: Pick<Config, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The URL without user name and password (an RPC URL carries them). */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return url;
  }
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

/** The report from a running server's GET /health; null when nothing answers there. */
export async function statusFromServer(baseUrl: string, timeoutMs = 5_000): Promise<StatusReport | null> {
  const url = `${baseUrl.replace(/\/+$/, '')}/health`;
  let body: Record<string, unknown>;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    return null;
  }
  const chains: ChainStatus[] = [];
  for (const chain of ['live', 'test'] as const) {
    const h = body[`chain_${chain}`] as Record<string, unknown> | undefined;
    if (!h || typeof h !== 'object') continue;
    const source = str(h.source) as SourceName | null;
    chains.push({
      chain,
      network: str(h.network) ?? (chain === 'live' ? 'mainnet' : '?'),
      source: source ?? 'rpc',
      sourceUrl: str(h.sourceUrl),
      tipHeight: num(h.tipHeight),
      tipHash: str(h.tipHash),
      headerHeight: num(h.headerHeight),
      serverTipHeight: num(h.serverTipHeight),
      lag: num(h.lag),
      verified: bool(h.verified),
      // A node's watcher reports no connection flag: it answered unless the watcher is stalled.
      connected: bool(h.connected) ?? (typeof h.stalled === 'boolean' ? !h.stalled : null),
      ok: bool(h.ok),
      lies: num(h.lies),
      error: str(h.error),
    });
  }
  return { running: true, url, status: str(body.status), chains };
}

/** The configured sources, with what the database holds for each; nothing is asked of any source. */
export async function statusFromDatabase(config: Config, url: string): Promise<StatusReport> {
  const configured: Array<{ chain: ChainId; network: string; source: SourceName; sourceUrl: string | null }> = [];
  const pick = (chain: ChainId, network: string, rpc: string | null, electrum: string | null, esplora: string | null) => {
    if (rpc) configured.push({ chain, network, source: 'rpc', sourceUrl: withoutCredentials(rpc) });
    else if (electrum) configured.push({ chain, network, source: 'electrum', sourceUrl: withoutCredentials(electrum) });
    else if (esplora) configured.push({ chain, network, source: 'esplora', sourceUrl: withoutCredentials(esplora) });
  };
  // Several light servers are shown as their list (each without credentials).
  const list = (first: string, more: string[] | undefined) => [first, ...(more ?? [])].map(withoutCredentials).join(',');
  const urls = (e: ChainEndpoint | undefined) =>
    [e && 'rpcUrl' in e ? e.rpcUrl : null, e && 'electrumUrl' in e ? list(e.electrumUrl, e.extraServers) : null, e && 'esploraUrl' in e ? list(e.esploraUrl, e.extraServers) : null] as const;
  pick('live', 'mainnet', ...urls(config.chains.live));
  pick('test', config.testNetwork, ...urls(config.chains.test));
  if (config.devChain) configured.push({ chain: 'test', network: 'regtest', source: 'devchain', sourceUrl: null });

  const target = dbTargetFromConfig(config);
  const haveDb = missingDatabaseFile(target) === null;
  const db = haveDb ? openDb(target) : null;
  try {
    const chains: ChainStatus[] = [];
    for (const c of configured) {
      const tip = db
        ? await db.kysely.selectFrom('chain_tips').select(['tip_height', 'tip_hash']).where('chain', '=', c.chain).executeTakeFirst().catch(() => undefined)
        : undefined;
      const light = c.source === 'electrum' || c.source === 'esplora';
      // Stored headers were verified when they were written; whether the server still agrees is unknown now.
      const headers = db && light ? await new HeaderStore(db, c.chain).tip().catch(() => undefined) : undefined;
      chains.push({
        ...c,
        tipHeight: tip ? Number(tip.tip_height) : null,
        tipHash: tip?.tip_hash ?? null,
        headerHeight: headers?.height ?? null,
        serverTipHeight: null,
        lag: null,
        verified: null,
        connected: null,
        ok: null,
        lies: null,
        error: null,
      });
    }
    return { running: false, url, status: null, chains };
  } finally {
    await db?.close();
  }
}

/** The report as lines for a terminal. */
export function formatStatus(r: StatusReport): string {
  const lines: string[] = [];
  lines.push(
    r.running
      ? `satgate is running (${r.url}: ${r.status ?? '?'})`
      : `satgate is not running (nothing answered at ${r.url}); from the configuration and the database: server tip, lag, connection and errors unknown`,
  );
  if (r.chains.length === 0) lines.push('no chain source is configured (README "Watching the chain")');
  const show = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v));
  for (const c of r.chains) {
    lines.push('');
    lines.push(`${c.chain} (${c.network}): ${c.source}${c.sourceUrl ? ` ${c.sourceUrl}` : ''}`);
    lines.push(`  tip         ${show(c.tipHeight)} ${c.tipHash ?? ''}`.trimEnd());
    if (c.source === 'electrum' || c.source === 'esplora') lines.push(`  headers     ${show(c.headerHeight)} (verified headers${r.running ? '' : ' stored'})`);
    lines.push(`  server tip  ${show(c.serverTipHeight)}   lag ${show(c.lag)}`);
    lines.push(`  verified    ${show(c.verified)}   connected ${show(c.connected)}   ok ${show(c.ok)}${c.lies ? `   lies ${c.lies}` : ''}`);
    lines.push(`  last error  ${c.error ?? (r.running ? 'none' : '-')}`);
  }
  return lines.join('\n');
}
