// Ledger export benchmark (issue 34): fills a wallet's ledger with BENCH_LEDGER_ROWS rows (default 1,000,000, bulk
// inserted by the database itself: the bench measures the export, not the sync), then streams the CSV export exactly
// as `satgate report ledger` does (keyset pages → CSV lines → a stream waited on when full) to a sink that counts
// bytes. Reports rows/s, the time to the first byte, and peak RSS beside a baseline measured in the same process
// just before the export (RSS after filling and a GC). Peak RSS is sampled every 20 ms and also read from
// process.resourceUsage().maxRSS; read the figures as ratios to the baseline, not as absolute claims.
// On SQLite, and on PostgreSQL when reachable (BENCH_DATABASE_URL, as bench/api.ts).
// Run: node --expose-gc bin/run-ts.js bench/report-export.ts   (env: BENCH_LEDGER_ROWS, BENCH_DATABASE_URL)
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { cpus, totalmem, platform, arch } from 'node:os';
import { sql } from 'kysely';
import { createTestDb } from '../test/support/test-db.ts';
import type { Db, Engine } from '../src/db/database.ts';
import { BENCH_PG_URL, createBenchPostgresDb, postgresReachable } from './bench-postgres.ts';
import { ledgerLines, writeRows } from '../src/reports/exports.ts';
import { ledgerRows, LEDGER_COLUMNS } from '../src/reports/ledger.ts';

const ROWS = positiveInt('BENCH_LEDGER_ROWS', 1_000_000);
const PG_URL = BENCH_PG_URL;
const MB = 1024 * 1024;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** One wallet and `n` receipt rows a second apart, made by the database in one statement. */
async function fill(db: Db, n: number): Promise<{ walletId: bigint; from: number; to: number }> {
  const now = Date.now();
  const wallet = await db.kysely
    .insertInto('wallets')
    .values({
      api_id: `bench-${randomBytes(4).toString('hex')}`, pub: 'bench', mode: 'test', network: 'regtest', script_type: 'p2wpkh', wallet_type: 0n,
      local_currency: 'usd', box_public_key: '', box_secret_sealed: '', sign_public_key: '', sign_secret_sealed: '', created_at: BigInt(now), updated_at: BigInt(now),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const start = now - n * 1000;
  const series =
    db.engine === 'postgres'
      ? sql`select g as n from generate_series(1, ${n}) as g`
      : sql`select value as n from (with recursive s(value) as (select 1 union all select value + 1 from s where value < ${n}) select value from s)`;
  // Times cast to bigint: PostgreSQL would type a bare parameter beside `n` as a 32-bit integer.
  // Amounts, references and fiat vary per row so the CSV is as wide as a real one.
  await sql`insert into ledger_entries (wallet_id, chain, kind, at, txid, vout, address, amount_sats, ref_kind, ref, first_seen_at,
      confirmed_height, confirmed_block_hash, confirmed_at, late, paid, currency, rate, rate_source, rate_at, rate_estimated,
      fiat_value, locked_rate, invoiced_amount, invoiced_currency, recorded_at)
    select ${wallet.id}, 'test', 'receipt', cast(${start} as bigint) + n * 1000, 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e' || (n % 10000), 0,
      'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 10000 + n, 'payment', 'order-' || n, cast(${start} as bigint) + n * 1000,
      100 + n / 10, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', cast(${start} as bigint) + n * 1000 + 600000, 0, 'exact', 'USD',
      '50000.5', 'spot', cast(${start} as bigint) + n * 1000, 0, '12.34', '50000.5', '12.34', 'USD', cast(${now} as bigint)
    from (${series}) as seq`.execute(db.kysely);
  return { walletId: wallet.id, from: start, to: now + 1000 };
}

/** A sink that counts bytes and asks for a drain every 64 KiB, as a pipe or an HTTP response does. */
function countingSink(onFirstByte: () => void): Writable & { bytes: number } {
  const sink = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _enc, done) {
      if (sink.bytes === 0) onFirstByte();
      sink.bytes += chunk.length;
      done();
    },
  }) as Writable & { bytes: number };
  sink.bytes = 0;
  return sink;
}

const gc = (globalThis as { gc?: () => void }).gc;

interface Figures {
  engine: Engine;
  rows: number;
  fillS: number;
  exportS: number;
  rowsPerS: number;
  firstByteMs: number;
  baselineRssMb: number;
  peakRssMb: number;
  maxRssMb: number;
  bytesMb: number;
}

async function benchEngine(engine: Engine): Promise<Figures> {
  const testDb = engine === 'postgres' ? await createBenchPostgresDb() : await createTestDb('sqlite');
  try {
    const t0 = performance.now();
    const { walletId, from, to } = await fill(testDb.db, ROWS);
    const fillS = (performance.now() - t0) / 1000;
    gc?.();
    const baselineRss = process.memoryUsage().rss;
    let peak = baselineRss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = performance.now();
    let firstByteMs = -1;
    const sink = countingSink(() => (firstByteMs = performance.now() - started));
    const n = await writeRows(ledgerLines(ledgerRows(testDb.db, { walletId, apiId: 'bench', from, to })), LEDGER_COLUMNS, 'csv', sink);
    await new Promise<void>((resolve, reject) => sink.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const exportS = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (n !== ROWS) throw new Error(`exported ${n} rows, expected ${ROWS}`);
    return {
      engine,
      rows: n,
      fillS,
      exportS,
      rowsPerS: n / exportS,
      firstByteMs,
      baselineRssMb: baselineRss / MB,
      peakRssMb: peak / MB,
      // maxRSS (KiB) covers the whole process life, filling included: an upper bound, not the export's own peak.
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      bytesMb: sink.bytes / MB,
    };
  } finally {
    await testDb.dispose();
  }
}

console.log(`Ledger export: ${ROWS.toLocaleString('en')} rows, CSV to a counting sink; node ${process.version}, ${platform()} ${arch()}, ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`);
if (!gc) console.log('NOTICE: run with --expose-gc for a steadier baseline (the baseline RSS is taken without a GC)');
const engines: Engine[] = ['sqlite'];
if (await postgresReachable()) engines.push('postgres');
else console.log(`NOTICE: PostgreSQL at ${new URL(PG_URL).host} is not reachable; skipping it (set BENCH_DATABASE_URL)`);
const results: Figures[] = [];
for (const engine of engines) {
  const f = await benchEngine(engine);
  results.push(f);
  console.log(`  ${engine}: filled in ${f.fillS.toFixed(1)} s; exported ${f.bytesMb.toFixed(0)} MiB in ${f.exportS.toFixed(1)} s`);
}
console.table(
  results.map((f) => ({
    engine: f.engine,
    rows: f.rows,
    'rows/s': Math.round(f.rowsPerS),
    'first byte ms': Math.round(f.firstByteMs),
    'baseline RSS MiB': Math.round(f.baselineRssMb),
    'peak RSS MiB': Math.round(f.peakRssMb),
    'peak / baseline': (f.peakRssMb / f.baselineRssMb).toFixed(2),
    'peak − baseline MiB': Math.round(f.peakRssMb - f.baselineRssMb),
    'maxRSS (process) MiB': Math.round(f.maxRssMb),
  })),
);
