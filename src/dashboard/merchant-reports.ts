// A signed-in merchant's reports: the ledger of one of their wallets over a period, brought up to date first as the
// CLI's `satgate report` does, so the dashboard API and the console export the very rows the CLI exports, and sum
// periods with the ledger's own summaries (reports/exports.ts) rather than a second way of counting.
import { PassThrough, type Readable } from 'node:stream';
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import { syncLedger } from '../reports/ledger-sync.ts';
import { ledgerRows, type LedgerFigures, type LedgerRow } from '../reports/ledger.ts';
import { summarize, writeRows, type ExportFormat, type Period, type SummaryRow } from '../reports/exports.ts';
import { profileWalletByApiId } from './accounts.ts';

export const REPORT_KINDS = ['receipt', 'refund', 'withdrawal', 'spend'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** What a report reads: a wallet of the profile, a period (from inclusive, to exclusive, epoch ms), maybe one kind. */
export interface ReportQuery {
  apiId: string;
  from: number;
  to: number;
  kind?: ReportKind;
}

type Entry = { row: LedgerRow; figures: LedgerFigures };

/** The ledger of the period, ready to read (any number of times, each a new pass over the pages). */
export interface WalletReport {
  apiId: string;
  currency: string;
  rows(): AsyncGenerator<Entry>;
}

/**
 * A date (YYYY-MM-DD, its midnight UTC) or an ISO 8601 time with its zone, as the CLI's `--from`/`--to` read them;
 * anything else is refused with the field named.
 */
export function reportTime(text: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? Date.parse(`${text}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(text)
      ? Date.parse(text)
      : NaN;
  // Date.parse rolls 2026-02-31 over to March; a date that is not on the calendar is refused instead.
  if (!Number.isFinite(ms) || (text.length === 10 && new Date(ms).toISOString().slice(0, 10) !== text)) {
    throw new DomainError('invalid', `Wrong or missing argument: ${name} must be a date (2026-01-31) or an ISO 8601 time with its zone (2026-01-31T12:00:00Z)`);
  }
  return ms;
}

/** Checks the period and that the wallet is the profile's, then brings its ledger up to date. */
export async function openReport(deps: { db: Db; clock: () => number }, profileId: bigint, q: ReportQuery): Promise<WalletReport> {
  if (!(q.to > q.from)) throw new DomainError('invalid', 'Wrong or missing argument: to must be after from');
  const wallet = await profileWalletByApiId(deps.db, profileId, q.apiId);
  if (!wallet) throw new DomainError('not-found', 'No such wallet among yours');
  await syncLedger(deps.db, wallet.id, deps.clock());
  const { kind } = q;
  return {
    apiId: wallet.api_id,
    currency: wallet.local_currency.toUpperCase(),
    async *rows() {
      for await (const entry of ledgerRows(deps.db, { walletId: wallet.id, apiId: wallet.api_id, from: q.from, to: q.to })) {
        if (kind === undefined || entry.row.kind === kind) yield entry;
      }
    },
  };
}

/** The ledger's per-period summaries of the report, oldest first. */
export async function reportSummaries(report: WalletReport, period: Period): Promise<SummaryRow[]> {
  const out: SummaryRow[] = [];
  for await (const s of summarize(report.rows(), period)) out.push(s);
  return out;
}

/** Rows written as they are read into a stream an HTTP reply sends: the first bytes leave before the last row is read. */
export function exportStream<R extends { [K in keyof R]: string }>(rows: AsyncIterable<R>, columns: readonly (keyof R & string)[], format: ExportFormat): Readable {
  const out = new PassThrough();
  // A client that goes away destroys the stream: reading stops at the next row, and a write waiting for room is let go.
  out.once('close', () => out.emit('drain'));
  async function* untilClosed(): AsyncGenerator<R> {
    for await (const row of rows) {
      if (out.destroyed) return;
      yield row;
    }
  }
  writeRows(untilClosed(), columns, format, out).then(
    () => out.end(),
    (err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))),
  );
  return out;
}

/** The headers of a download: its type and a file name saying what it holds. */
export function downloadHeaders(apiId: string, what: string, from: number, to: number, format: 'csv' | 'jsonl'): Record<string, string> {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  // The last day named is the last one in the period (`to` itself is excluded).
  const name = `${what}-${apiId.replace(/[^A-Za-z0-9_-]/g, '')}-${day(from)}-${day(to - 1)}.${format}`;
  return {
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
  };
}
