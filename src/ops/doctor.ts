import { existsSync, statSync } from 'node:fs';
import nodemailer from 'nodemailer';
import { loadConfig, ConfigError, type Config } from '../config/config.ts';
import { openDb, dbTargetFromConfig, embeddedFile, missingDatabaseFile, type Db } from '../db/database.ts';
import { readSchemaState } from '../db/schema-version.ts';
import { createHash } from 'node:crypto';
import { RpcClient } from '../chain/rpc-client.ts';
import { ElectrumBackend } from '../chain/light/electrum-backend.ts';
import { EsploraBackend } from '../chain/light/esplora-backend.ts';
import { parseElectrumUrl } from '../chain/light/electrum-client.ts';
import { parseProxyUrl } from '../chain/light/socks-proxy.ts';
import { headerRules } from '../chain/light/consensus-params.ts';
import type { LightBackend } from '../chain/light/light-backend.ts';
import type { Network } from '../bitcoin/networks.ts';
import { MasterKey } from '../security/master-key.ts';
import { RateStore } from '../rates/rate-store.ts';
import { devChainInstalled, NO_CHAIN_SOURCE_HELP } from '../config/chain-source.ts';
import { listenUrl, readServerUrl } from '../config/server-url-file.ts';
import type { MemberHealth } from '../chain/light/pool-member.ts';

/** One line of `satgate doctor`: fail makes the exit code non-zero, warn does not. */
export interface Finding {
  check: string;
  verdict: 'ok' | 'warn' | 'fail';
  detail: string;
}

/** The chain name `getblockchaininfo` reports for each network satgate may be configured with. */
const CHAIN_NAMES: Record<string, string> = { live: 'main', testnet4: 'testnet4', signet: 'signet', regtest: 'regtest' };
const TIP_STALE_MS = 2 * 3_600_000;
const PROBE_TIMEOUT_MS = 5_000;

/** Runs every check against the environment's configuration and answers one finding per check. */
export async function runDoctor(env: NodeJS.ProcessEnv = process.env, now = Date.now()): Promise<Finding[]> {
  const findings: Finding[] = [];
  let config: Config;
  try {
    config = loadConfig(env);
    findings.push({ check: 'configuration', verdict: 'ok', detail: 'environment variables are valid' });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return [{ check: 'configuration', verdict: 'fail', detail: err.problems.join('; ') }];
  }
  findings.push(checkDataDir(config));
  findings.push(checkMasterKey(config));
  const target = dbTargetFromConfig(config);
  const missing = missingDatabaseFile(target);
  if (missing !== null) {
    findings.push({ check: 'database', verdict: 'fail', detail: `no database at ${missing}: start satgate once or run "satgate db migrate"` });
  } else {
    const db = openDb(target);
    try {
      findings.push(...(await checkDatabase(db, config, now)));
    } finally {
      await db.close();
    }
  }
  findings.push(...(await checkChains(config, now)));
  findings.push(await checkSmtp(config));
  findings.push(await checkPublicUrl(config));
  return findings;
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function checkDataDir(config: Config): Finding {
  const check = 'data directory';
  if (!existsSync(config.dataDir)) return { check, verdict: 'fail', detail: `${config.dataDir} does not exist (SATGATE_DATA_DIR)` };
  const m = mode(config.dataDir);
  if (m & 0o002) return { check, verdict: 'fail', detail: `${config.dataDir} is writable by every user (mode ${m.toString(8)}): chmod 700 it` };
  if (config.databaseUrl === null) {
    const file = embeddedFile(dbTargetFromConfig(config));
    if (file !== null && existsSync(file) && mode(file) & 0o077) {
      return {
        check,
        verdict: 'fail',
        detail: `${file} has mode ${mode(file).toString(8)}: other users can read sealed keys, token hashes and e-mail addresses; chmod 600 it (and its -wal/-shm files)`,
      };
    }
  }
  return { check, verdict: 'ok', detail: `${config.dataDir} (mode ${m.toString(8)})` };
}

function checkMasterKey(config: Config): Finding {
  const check = 'master key';
  const file = config.masterKeyFile;
  if (!existsSync(file)) {
    return { check, verdict: 'fail', detail: `${file} is missing (SATGATE_MASTER_KEY_FILE): without it sealed wallet keys cannot be decrypted; restore it from your backup` };
  }
  let key: MasterKey;
  try {
    key = MasterKey.loadOrCreate(file).masterKey;
  } catch (err) {
    return { check, verdict: 'fail', detail: err instanceof Error ? err.message : String(err) };
  }
  const m = mode(file);
  if (m & 0o077) return { check, verdict: 'fail', detail: `${file} has mode ${m.toString(8)}: chmod 600 it` };
  return {
    check,
    verdict: 'ok',
    detail: `${file} (mode 600, fingerprint ${key.fingerprint()}); is it backed up? Copy it somewhere safe and offline, apart from the database backups`,
  };
}

async function checkDatabase(db: Db, config: Config, now: number): Promise<Finding[]> {
  const out: Finding[] = [];
  try {
    await db.ping();
  } catch (err) {
    return [{ check: 'database', verdict: 'fail', detail: `${db.engine} is unreachable: ${err instanceof Error ? err.message : String(err)}` }];
  }
  const s = await readSchemaState(db);
  if (s.unknown.length > 0) out.push({ check: 'database', verdict: 'fail', detail: `schema version ${s.database} is newer than this satgate knows (${s.binary})` });
  else if (s.pending.length > 0) {
    out.push({
      check: 'database',
      verdict: config.autoMigrate ? 'warn' : 'fail',
      detail: `schema version ${s.database}, this satgate needs ${s.binary}: ${config.autoMigrate ? 'it migrates at start' : 'run "satgate db migrate"'}`,
    });
  } else out.push({ check: 'database', verdict: 'ok', detail: `${db.engine} reachable, schema version ${s.database} (current)` });
  if (s.applied.length === 0) return out;
  const latest = await new RateStore(db).latestRefresh();
  const limit = Math.max(2 * config.rateIntervalMs, 3_600_000);
  if (!latest) out.push({ check: 'exchange rates', verdict: 'warn', detail: 'no rates stored yet: they are fetched when the server starts' });
  else {
    const age = now - latest.fetchedAt;
    out.push(
      age > limit
        ? { check: 'exchange rates', verdict: 'fail', detail: `the newest rates were fetched ${Math.round(age / 60_000)} min ago (limit ${Math.round(limit / 60_000)} min): providers are failing or the server is not running` }
        : { check: 'exchange rates', verdict: 'ok', detail: `fetched ${Math.round(age / 60_000)} min ago` },
    );
  }
  return out;
}

async function checkChains(config: Config, now: number): Promise<Finding[]> {
  const sources: { mode: 'live' | 'test'; url: string; expected: string }[] = [];
  const { live, test } = config.chains;
  if (live && 'rpcUrl' in live) sources.push({ mode: 'live', url: live.rpcUrl, expected: CHAIN_NAMES.live! });
  if (test && 'rpcUrl' in test) sources.push({ mode: 'test', url: test.rpcUrl, expected: CHAIN_NAMES[config.testNetwork]! });
  const light: LightProbe[] = [];
  // Each server of a comma-separated list is probed and reported on its own.
  const servers = (e: { extraServers?: string[] }, first: string) => [first, ...(e.extraServers ?? [])];
  const add = (mode: 'live' | 'test', kind: LightProbe['kind'], urls: string[], network: Network, proxy: string | null) =>
    urls.forEach((url, i) => light.push({ mode, kind, url, network, proxy, ...(urls.length > 1 ? { index: i + 1, of: urls.length } : {}) }));
  if (live && 'electrumUrl' in live) add('live', 'electrum', servers(live, live.electrumUrl), 'mainnet', live.proxy ?? null);
  if (live && 'esploraUrl' in live) add('live', 'esplora', servers(live, live.esploraUrl), 'mainnet', null);
  if (test && 'electrumUrl' in test) add('test', 'electrum', servers(test, test.electrumUrl), config.testNetwork, test.proxy ?? null);
  if (test && 'esploraUrl' in test) add('test', 'esplora', servers(test, test.esploraUrl), config.testNetwork, null);
  if (sources.length === 0 && light.length === 0) {
    return [
      devChainInstalled()
        ? { check: 'chain', verdict: 'warn', detail: 'no node configured: the server runs the built-in development chain (regtest); live mode is off' }
        : { check: 'chain', verdict: 'fail', detail: NO_CHAIN_SOURCE_HELP },
    ];
  }
  const out: Finding[] = [];
  out.push(...(await checkLightServers(config, light)));
  for (const s of sources) {
    const check = `chain ${s.mode}`;
    const rpc = new RpcClient({ url: s.url, timeoutMs: PROBE_TIMEOUT_MS, retries: 0 });
    try {
      const info = await rpc.getBlockchainInfo();
      if (info.chain !== s.expected) {
        out.push({ check, verdict: 'fail', detail: `the node runs "${info.chain}" but satgate expects "${s.expected}" for ${s.mode} mode${s.mode === 'test' ? ' (SATGATE_TEST_NETWORK)' : ''}` });
        continue;
      }
      const header = await rpc.getBlockHeader(info.bestblockhash);
      const age = now - Number(header.time) * 1000;
      if (s.expected !== 'regtest' && age > TIP_STALE_MS) {
        out.push({ check, verdict: 'warn', detail: `tip ${info.blocks} is ${Math.round(age / 60_000)} min old: is the node syncing or cut off?` });
      } else out.push({ check, verdict: 'ok', detail: `${info.chain} at height ${info.blocks}, tip ${Math.max(0, Math.round(age / 60_000))} min old` });
    } catch (err) {
      out.push({ check, verdict: 'fail', detail: `node unreachable: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return out;
}

/**
 * A light source: reachable, and on the configured network (the header at the network's checkpoint height hashes
 * to the checkpoint). Proof of work and Merkle proofs are checked while the server runs and reported in /health.
 */
/** A configured light source to probe; `proxy` is SATGATE_PROXY, for an Electrum server. */
interface LightProbe {
  mode: 'live' | 'test';
  kind: 'electrum' | 'esplora';
  url: string;
  network: Network;
  proxy: string | null;
  /** Its place in a list of several servers (each reported on its own, as `chain test server 2/3`). */
  index?: number;
  of?: number;
}

/** Every server probed at once; of several, one behind the best tip is reported as lagging. */
async function checkLightServers(config: Config, probes: LightProbe[]): Promise<Finding[]> {
  const results = await Promise.all(probes.map((p) => checkLightSource(config, p)));
  const seen = probes.some((p) => p.of !== undefined) ? await runningServers(config) : null;
  for (const mode of ['live', 'test'] as const) {
    const mine = results.filter((_, i) => probes[i]!.mode === mode && probes[i]!.of !== undefined);
    const best = Math.max(-1, ...mine.map((r) => r.tip ?? -1));
    for (const r of mine) {
      if (r.tip !== undefined && r.tip < best && r.finding.verdict === 'ok') {
        r.finding = { ...r.finding, verdict: 'warn', detail: `${r.finding.detail}; lagging: ${best - r.tip} block(s) behind the best tip ${best} of the other servers (asked no histories until it catches up)` };
      }
      r.finding = withRunningHealth(r, seen === null ? null : (seen[mode] ?? []));
    }
  }
  return results.map((r) => r.finding);
}

/**
 * What the running server saw of each light server (GET /health from this machine shows each one's omissions,
 * refusals and lag), keyed by network; null when no server answers (doctor runs before the first start too).
 */
async function runningServers(config: Config): Promise<Partial<Record<'live' | 'test', MemberHealth[]>> | null> {
  const base = readServerUrl(config.dataDir) ?? listenUrl(config.host, config.port);
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await res.json()) as Record<string, { servers?: MemberHealth[] } | undefined>;
    const out: Partial<Record<'live' | 'test', MemberHealth[]>> = {};
    for (const mode of ['live', 'test'] as const) {
      const servers = body[`chain_${mode}`]?.servers;
      if (Array.isArray(servers)) out[mode] = servers;
    }
    return out;
  } catch {
    return null;
  }
}

/** A server's line completed with what the running server saw of it: omissions make it a warning. */
function withRunningHealth(r: { finding: Finding; url?: string }, seen: MemberHealth[] | null): Finding {
  if (r.finding.verdict === 'fail') return r.finding;
  if (seen === null) return { ...r.finding, detail: `${r.finding.detail}; omissions seen: not known (satgate is not running here)` };
  const h = seen.find((s) => s.url === r.url);
  if (!h) return r.finding;
  // A running server older than the block count does not report it.
  const badBlocks = h.badBlocks ?? 0;
  const parts = [`${h.omissions} omission(s)`, `${h.refusals} refusal(s)`];
  if (badBlocks > 0) parts.push(`${badBlocks} bad block(s)`);
  if (h.backingOffUntil !== null) parts.push('throttling now (backing off)');
  if (h.lagging) parts.push(`lagging (${h.lagReason})`);
  const detail = `${r.finding.detail}; seen while running: ${parts.join(', ')}`;
  if (h.omissions === 0 && badBlocks === 0) return { ...r.finding, detail };
  let why = '';
  if (h.omissions > 0) {
    const last = h.lastOmission ? `, last ${h.lastOmission.kind} of ${h.lastOmission.txid}` : '';
    why += `${last}: it left out transactions other servers listed, and is asked less`;
  }
  if (badBlocks > 0) {
    const last = h.lastBadBlock ? ` (last ${h.lastBadBlock.hash})` : '';
    why += `${why ? '; ' : ': '}it sent blocks that are not the ones our verified headers name${last}, and is asked for blocks after the others`;
  }
  return { ...r.finding, verdict: 'warn', detail: `${detail}${why}` };
}

async function checkLightSource(config: Config, s: LightProbe): Promise<{ finding: Finding; tip?: number; url?: string }> {
  const check = s.of === undefined ? `chain ${s.mode}` : `chain ${s.mode} server ${s.index}/${s.of}`;
  const label = s.kind === 'electrum' ? 'Electrum server' : 'Esplora API';
  let backend: LightBackend | undefined;
  try {
    backend =
      s.kind === 'electrum'
        ? new ElectrumBackend({ endpoint: parseElectrumUrl(s.url), proxy: s.proxy ? parseProxyUrl(s.proxy) : null, timeoutMs: PROBE_TIMEOUT_MS })
        : new EsploraBackend({ url: s.url, timeoutMs: PROBE_TIMEOUT_MS, tipCacheMs: 0 });
    const probe = backend;
    const { checkpoint } = headerRules(s.network);
    const answer = await Promise.race([
      (async () => {
        const tip = await probe.tipHeight();
        if (tip < checkpoint.height) return { tip, matches: null };
        const [header] = await probe.headers(checkpoint.height, 1);
        const hash = header ? Buffer.from(createHash('sha256').update(createHash('sha256').update(header).digest()).digest()).reverse().toString('hex') : '';
        return { tip, matches: hash === checkpoint.hash };
      })(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS).unref()),
    ]);
    if (answer.matches === false) {
      return { finding: { check, verdict: 'fail', detail: `the ${label} at ${backend.url} serves another network: its block ${checkpoint.height} is not ${s.network}'s` } };
    }
    if (answer.matches === null) {
      return { finding: { check, verdict: 'warn', detail: `the ${label} at ${backend.url} is at height ${answer.tip}, below ${s.network}'s checkpoint ${checkpoint.height}: still syncing?` } };
    }
    const running = s.of === undefined ? 'see /health' : 'per server in /health servers and /metrics';
    const detail = `${label} at ${backend.url}: ${s.network} at height ${answer.tip} (headers and Merkle proofs are verified while running; ${running})`;
    return { finding: { check, verdict: 'ok', detail }, tip: answer.tip, url: backend.url };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/excessive resource usage|429/.test(message)) {
      return { finding: { check, verdict: 'warn', detail: `${label} at ${s.url} is throttling satgate (${message}); satgate backs off and uses the other servers` } };
    }
    return { finding: { check, verdict: 'fail', detail: `${label} unreachable: ${message}` } };
  } finally {
    await backend?.close().catch(() => {});
  }
}

async function checkSmtp(config: Config): Promise<Finding> {
  if (!config.smtpUrl) return { check: 'smtp', verdict: 'ok', detail: `SATGATE_SMTP_URL not set: mails are written as files under ${config.dataDir}/mail` };
  const transport = nodemailer.createTransport(config.smtpUrl);
  const host = new URL(config.smtpUrl).host;
  try {
    await Promise.race([
      transport.verify(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS).unref()),
    ]);
    return { check: 'smtp', verdict: 'ok', detail: `${host} accepts connections` };
  } catch (err) {
    return { check: 'smtp', verdict: 'fail', detail: `${host}: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    transport.close();
  }
}

async function checkPublicUrl(config: Config): Promise<Finding> {
  const url = `${config.publicUrl}/health`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return res.status === 200
      ? { check: 'public url', verdict: 'ok', detail: `${url} answers 200` }
      : { check: 'public url', verdict: 'warn', detail: `${url} answers ${res.status}` };
  } catch (err) {
    return { check: 'public url', verdict: 'warn', detail: `${url} is not reachable from here (is the server running? SATGATE_PUBLIC_URL): ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The report as printed: one line per check, then a summary. */
export function formatFindings(findings: Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length));
  const lines = findings.map((f) => `${f.verdict.toUpperCase().padEnd(4)}  ${f.check.padEnd(width)}  ${f.detail}`);
  const failed = findings.filter((f) => f.verdict === 'fail').length;
  const warned = findings.filter((f) => f.verdict === 'warn').length;
  lines.push('', failed ? `${failed} check(s) failed, ${warned} warning(s)` : `all checks passed (${warned} warning(s))`);
  return lines.join('\n');
}
