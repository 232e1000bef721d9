import { createWriteStream, openSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import pino from 'pino';
import { optionValues, UsageError, type Command } from '../command.ts';
import { openStore } from '../open-store.ts';
import type { Db } from '../../db/database.ts';
import { ChainService } from '../../chain/chain-service.ts';
import { syncLedger } from '../../reports/ledger-sync.ts';
import { ledgerRows, LEDGER_COLUMNS } from '../../reports/ledger.ts';
import { ledgerLines, summarize, SUMMARY_COLUMNS, writeRows, type ExportFormat, type Period } from '../../reports/exports.ts';
import { blockReaderOf, reconcile } from '../../reports/reconcile.ts';
import { btcFixed } from '../../reports/ledger.ts';
import { clearProgressLine, exportStream, progressLine, say } from '../output.ts';

function one(args: string[], name: string): string | undefined {
  const values = optionValues(args, name);
  if (values.length > 1) throw new UsageError(`${name} may be given once`);
  return values[0];
}

/** A date (YYYY-MM-DD, midnight UTC) or a full ISO 8601 time with its zone. */
function parseTime(text: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`${name} must be a date (2026-01-31) or an ISO 8601 time with its zone (2026-01-31T12:00:00Z)`);
  return ms;
}

interface ReportArgs {
  wallet: string;
  from: number;
  to: number;
}

function reportArgs(args: string[]): ReportArgs {
  const wallet = one(args, '--wallet');
  if (!wallet) throw new UsageError('--wallet <api id or key> is required');
  const fromText = one(args, '--from');
  const toText = one(args, '--to');
  if (!fromText || !toText) throw new UsageError('--from and --to are required (the period: from inclusive, to exclusive; a date means its midnight UTC)');
  const from = parseTime(fromText, '--from');
  const to = parseTime(toText, '--to');
  if (to <= from) throw new UsageError('--to must be after --from');
  return { wallet, from, to };
}

async function findWallet(db: Db, idOrKey: string): Promise<{ id: bigint; api_id: string; mode: 'live' | 'test' }> {
  const w = await db.kysely.selectFrom('wallets').select(['id', 'api_id', 'mode']).where((eb) => eb.or([eb('api_id', '=', idOrKey), eb('pub', '=', idOrKey)])).executeTakeFirst();
  if (!w) throw new UsageError('no wallet with that API ID or key');
  return w;
}

function formatOf(args: string[]): ExportFormat {
  const f = one(args, '--format') ?? 'csv';
  if (f !== 'csv' && f !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  return f;
}

/** Where the export goes, and how to finish it. */
function destination(args: string[]): { out: Writable; done: () => Promise<void> } {
  const file = one(args, '--out');
  if (!file) {
    const out = exportStream();
    return {
      out,
      done: async () => {
        if (out === process.stdout) return;
        out.end();
        await finished(out);
      },
    };
  }
  let fd: number;
  try {
    // 'wx': an existing file is never overwritten by an export.
    fd = openSync(file, 'wx');
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it already exists' : (err as Error).message}`);
  }
  const out = createWriteStream('', { fd });
  return {
    out,
    done: async () => {
      out.end();
      await finished(out);
    },
  };
}

/** A progress line on a terminal only: a pipe or a file gets nothing but the export. */
function progress(): { tick: (n: number) => void; end: () => void } {
  if (!process.stderr.isTTY) return { tick: () => {}, end: () => {} };
  let last = 0;
  return {
    tick: (n) => {
      const now = Date.now();
      if (now - last < 250) return;
      last = now;
      progressLine(`${n} rows`);
    },
    end: clearProgressLine,
  };
}

const USAGE = '--wallet <api id or key> --from <date> --to <date> [--format csv|jsonl] [--out <file>]';

export const reportCommands: Command[] = [
  {
    path: ['report', 'ledger'],
    summary: "export a wallet's ledger (every receipt, refund, withdrawal and spend, with the fiat value at first sight)",
    usage: `satgate report ledger ${USAGE}`,
    run: async (args) => {
      const a = reportArgs(args);
      const format = formatOf(args);
      const { db } = await openStore();
      try {
        const wallet = await findWallet(db, a.wallet);
        await syncLedger(db, wallet.id, Date.now());
        const { out, done } = destination(args);
        const p = progress();
        await writeRows(ledgerLines(ledgerRows(db, { walletId: wallet.id, apiId: wallet.api_id, from: a.from, to: a.to })), LEDGER_COLUMNS, format, out, p.tick);
        p.end();
        await done();
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['report', 'summary'],
    summary: "a wallet's ledger summed per day, month or year (count, BTC in, BTC out, fees, fiat in at payment-time rates)",
    usage: `satgate report summary ${USAGE} [--period day|month|year]`,
    run: async (args) => {
      const a = reportArgs(args);
      const format = formatOf(args);
      const period = (one(args, '--period') ?? 'day') as Period;
      if (!['day', 'month', 'year'].includes(period)) throw new UsageError('--period must be day, month or year');
      const { db } = await openStore();
      try {
        const wallet = await findWallet(db, a.wallet);
        await syncLedger(db, wallet.id, Date.now());
        const { out, done } = destination(args);
        await writeRows(summarize(ledgerRows(db, { walletId: wallet.id, apiId: wallet.api_id, from: a.from, to: a.to }), period), SUMMARY_COLUMNS, format, out);
        await done();
      } finally {
        await db.close();
      }
    },
  },
  {
    path: ['report', 'check'],
    summary: "compare a period's ledger totals with what the chain says the wallet received and spent; exits 1 on a difference",
    usage: 'satgate report check --wallet <api id or key> --from <date> --to <date>',
    run: async (args) => {
      const a = reportArgs(args);
      const { config, db } = await openStore();
      const chains = new ChainService(db, Date.now, pino({ level: 'silent' }), config.pollMs, config.fallbackFeeRate);
      try {
        const wallet = await findWallet(db, a.wallet);
        await chains.configure(config.chains);
        const reader = blockReaderOf(chains.forMode(wallet.mode).source);
        if (!reader) throw new UsageError('report check reads a node\'s blocks or a light server\'s script histories; this chain has neither configured');
        await syncLedger(db, wallet.id, Date.now());
        const result = await reconcile(db, reader, wallet.id, a.from, a.to);
        say`ledger: received ${btcFixed(result.ledger.receivedSats)} BTC, spent ${btcFixed(result.ledger.spentSats)} BTC`;
        say`chain:  received ${btcFixed(result.chain.receivedSats)} BTC, spent ${btcFixed(result.chain.spentSats)} BTC`;
        if (result.differences.length === 0) {
          say`the ledger agrees with the chain`;
          return 0;
        }
        for (const d of result.differences) say`difference: ${d}`;
        return 1;
      } finally {
        await chains.close();
        await db.close();
      }
    },
  },
];
