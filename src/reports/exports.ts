// Ledger exports: CSV (RFC 4180), JSON Lines and per-period summaries, written row by row to a stream that is
// waited on when full, so memory stays flat however many rows there are.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { parseDecimal, unitsToString } from '../money/decimal.ts';
import { minorUnits } from '../money/currencies.ts';
import { btcFixed, LEDGER_COLUMNS, type LedgerFigures, type LedgerRow } from './ledger.ts';

export type ExportFormat = 'csv' | 'jsonl';
export type Period = 'day' | 'month' | 'year';

/**
 * RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. A text a spreadsheet would run as a
 * formula (a shop's order reference starting with =, +, -, @, tab or CR) is written with a leading apostrophe, which
 * spreadsheets show as text (OWASP's CSV injection advice); signed decimal amounts are numbers and stay as they are.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const csvLine = (fields: readonly string[]) => `${fields.map(csvField).join(',')}\r\n`;

/** Writes and waits for the stream to drain when it asks to. */
export async function writeWithBackpressure(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Writes rows in the format; returns how many. `onRow` hears the count (for a progress line). */
export async function writeRows<R extends { [K in keyof R]: string }>(
  rows: AsyncIterable<R>,
  columns: readonly (keyof R & string)[],
  format: ExportFormat,
  out: Writable,
  onRow?: (n: number) => void,
): Promise<number> {
  let n = 0;
  if (format === 'csv') await writeWithBackpressure(out, csvLine(columns));
  for await (const row of rows) {
    const ordered = columns.map((c) => row[c] ?? '');
    await writeWithBackpressure(out, format === 'csv' ? csvLine(ordered) : `${JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, ordered[i]])))}\n`);
    n += 1;
    onRow?.(n);
  }
  return n;
}

export async function* ledgerLines(rows: AsyncIterable<{ row: LedgerRow }>): AsyncGenerator<LedgerRow> {
  for await (const r of rows) yield r.row;
}

/** One period of the summary. */
export interface SummaryRow {
  period: string;
  count: string;
  btc_in: string;
  btc_out: string;
  fees_btc: string;
  fiat_in: string;
  currency: string;
}

export const SUMMARY_COLUMNS: readonly (keyof SummaryRow & string)[] = ['period', 'count', 'btc_in', 'btc_out', 'fees_btc', 'fiat_in', 'currency'];

/** A signed fiat value (a reversal is negative) in the currency's minor units, so sums stay exact integers. */
function fiatUnits(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const d = parseDecimal(negative ? text.slice(1) : text);
  const units = d.scale <= scale ? d.units * 10n ** BigInt(scale - d.scale) : d.units / 10n ** BigInt(d.scale - scale);
  return negative ? -units : units;
}

const periodOf = (ms: number, period: Period) => new Date(ms).toISOString().slice(0, period === 'day' ? 10 : period === 'month' ? 7 : 4);

/**
 * Sums rows per UTC day, month or year as they stream past (rows come oldest first, so a period is complete when the
 * next begins). Reversing rows count with their sign: a period's figures are what stands after reorgs and double spends.
 * BTC out is what left for payees; fees are apart.
 */
export async function* summarize(rows: AsyncIterable<{ row: LedgerRow; figures: LedgerFigures }>, period: Period): AsyncGenerator<SummaryRow> {
  let current: { key: string; count: number; inSats: bigint; outSats: bigint; fees: bigint; fiat: bigint; scale: number; currency: string } | null = null;
  const finish = (c: NonNullable<typeof current>): SummaryRow => ({
    period: c.key,
    count: String(c.count),
    btc_in: btcFixed(c.inSats),
    btc_out: btcFixed(c.outSats),
    fees_btc: btcFixed(c.fees),
    fiat_in: unitsToString(c.fiat, c.scale),
    currency: c.currency,
  });
  for await (const { row, figures } of rows) {
    const key = periodOf(figures.at, period);
    if (current && current.key !== key) {
      yield finish(current);
      current = null;
    }
    current ??= { key, count: 0, inSats: 0n, outSats: 0n, fees: 0n, fiat: 0n, scale: minorUnits(row.currency), currency: row.currency };
    current.count += 1;
    if (figures.kind === 'receipt') {
      current.inSats += figures.amountSats;
      if (figures.fiat !== null) current.fiat += fiatUnits(figures.fiat, current.scale);
    } else {
      current.outSats -= figures.amountSats;
      current.fees -= figures.feeSats;
    }
  }
  if (current) yield finish(current);
}
