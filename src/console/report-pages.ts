// The console's Reports routes: the page (form, charts, figures) and the ledger download, which streams the export
// the dashboard API and the CLI write, under the console's session cookie. The form's days are both included, as a
// person reads "from 1 to 31 March"; the report's period ends at the midnight after the last day.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../core/domain-errors.ts';
import { unitsToString } from '../money/decimal.ts';
import { minorUnits } from '../money/currencies.ts';
import type { DashboardSession } from '../dashboard/sessions.ts';
import type { Merchant } from '../dashboard/merchant.ts';
import type { WalletOverview } from '../dashboard/merchant-wallets.ts';
import { downloadHeaders, exportStream, REPORT_KINDS, reportSummaries, reportTime, type ReportKind, type ReportQuery } from '../dashboard/merchant-reports.ts';
import { ledgerLines, type SummaryRow } from '../reports/exports.ts';
import { btcFixed, LEDGER_COLUMNS } from '../reports/ledger.ts';
import { refusalStatus, messageOf } from './error-page.ts';
import type { Shell } from './views/layout.ts';
import { renderReports, type ReportForm } from './views/reports.ts';

const DAY_MS = 86_400_000;
/** Bars a chart can show legibly: a year of days, ten years of months. */
const MAX_DAYS = 366;
const MAX_MONTHS = 120;

/** What the routes borrow from the console. */
export interface ReportPageDeps {
  merchant: Merchant;
  session(request: FastifyRequest): DashboardSession;
  base(request: FastifyRequest): Omit<Shell, 'title' | 'section'>;
  html(reply: FastifyReply, status: number, page: string): FastifyReply;
  secure(reply: FastifyReply): FastifyReply;
}

/** One query value; a repeated one is refused rather than guessed at. */
function value(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new DomainError('invalid', `Wrong or missing argument: ${name} must be given once`);
  return v;
}

/** The form as asked for, with defaults: the first wallet, the last 30 days, everything, per day. */
function formOf(query: Record<string, unknown>, wallets: WalletOverview[], now: number): ReportForm {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return {
    api_id: value(query, 'api_id') ?? wallets[0]?.api_id ?? '',
    from: value(query, 'from') ?? day(today - 29 * DAY_MS),
    to: value(query, 'to') ?? day(today),
    kind: value(query, 'kind') ?? 'all',
    group: value(query, 'group') ?? 'day',
  };
}

function dayOf(text: string, label: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) throw new DomainError('invalid', `${label} must be a day written as YYYY-MM-DD, for example 2026-03-31.`);
  try {
    return reportTime(text, label);
  } catch {
    throw new DomainError('invalid', `${label} (${text}) is not a day of the calendar.`);
  }
}

/** The report the form asks for, or a refusal that says what to change. */
function queryOf(form: ReportForm): { query: ReportQuery; group: 'day' | 'month' } {
  const from = dayOf(form.from, 'From');
  const to = dayOf(form.to, 'To') + DAY_MS;
  if (to <= from) throw new DomainError('invalid', 'The period ends before it starts: To must be the same day as From or later.');
  if (form.kind !== 'all' && !(REPORT_KINDS as readonly string[]).includes(form.kind)) throw new DomainError('invalid', `Kind must be one of all, ${REPORT_KINDS.join(', ')}.`);
  if (form.group !== 'day' && form.group !== 'month') throw new DomainError('invalid', 'Per must be day or month.');
  if (form.group === 'day' && (to - from) / DAY_MS > MAX_DAYS) throw new DomainError('invalid', `A report per day covers at most ${MAX_DAYS} days; choose Per month for a longer period.`);
  if (form.group === 'month' && periodsOf(from, to, 'month').length > MAX_MONTHS) throw new DomainError('invalid', `A report per month covers at most ${MAX_MONTHS} months; choose a shorter period.`);
  return { query: { apiId: form.api_id, from, to, ...(form.kind === 'all' ? {} : { kind: form.kind as ReportKind }) }, group: form.group === 'month' ? 'month' : 'day' };
}

/** Every UTC day or month the period touches, as the summaries name them. */
function periodsOf(from: number, to: number, group: 'day' | 'month'): string[] {
  const out: string[] = [];
  if (group === 'day') {
    for (let t = from; t < to; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
    return out;
  }
  const d = new Date(from);
  for (let y = d.getUTCFullYear(), m = d.getUTCMonth(); Date.UTC(y, m) < to; m === 11 ? ((m = 0), (y += 1)) : (m += 1)) {
    out.push(`${y}-${String(m + 1).padStart(2, '0')}`);
  }
  return out;
}

/** The summaries with every period of the range present: a period without entries is zero, not missing. */
function allPeriods(summaries: SummaryRow[], from: number, to: number, group: 'day' | 'month', currency: string): SummaryRow[] {
  const known = new Map(summaries.map((s) => [s.period, s]));
  const zero = btcFixed(0n);
  const fiatZero = unitsToString(0n, minorUnits(currency));
  return periodsOf(from, to, group).map((period) => known.get(period) ?? { period, count: '0', btc_in: zero, btc_out: zero, fees_btc: zero, fiat_in: fiatZero, currency });
}

/** Registers GET /console/reports and GET /console/reports/ledger in the console's signed-in scope. */
export function reportPages(scope: FastifyInstance, d: ReportPageDeps): void {
  scope.get<{ Querystring: Record<string, unknown> }>('/console/reports', { schema: { summary: 'Console: reports, charts and ledger downloads (HTML)', tags: ['pages'] } }, async (request, reply) => {
    const s = d.session(request);
    const wallets = await d.merchant.wallets(s);
    const form = formOf(request.query, wallets, Date.now());
    // A merchant without wallets sees the empty page; a wallet named in the query is still checked for ownership.
    if (wallets.length === 0 && value(request.query, 'api_id') === undefined) return d.html(reply, 200, renderReports(d.base(request), wallets, form, null));
    try {
      const { query, group } = queryOf(form);
      const report = await d.merchant.report(s, query);
      const periods = allPeriods(await reportSummaries(report, group), query.from, query.to, group, report.currency);
      const coin = wallets.find((w) => w.api_id === report.apiId)?.mode === 'test' ? 'testBTC' : 'BTC';
      return d.html(reply, 200, renderReports(d.base(request), wallets, form, { currency: report.currency, coin, periods }));
    } catch (err) {
      // Another merchant's wallet is answered as not found, like every other thing that is not theirs.
      if (err instanceof DomainError && err.kind === 'not-found') throw err;
      const status = refusalStatus(err);
      if (status === null) throw err;
      return d.html(reply, status, renderReports({ ...d.base(request), flash: { kind: 'error', text: messageOf(err) } }, wallets, form, null));
    }
  });

  scope.get<{ Querystring: Record<string, unknown> }>('/console/reports/ledger', { schema: { hide: true } }, async (request, reply) => {
    const format = value(request.query, 'format') ?? 'csv';
    if (format !== 'csv' && format !== 'jsonl') throw new DomainError('invalid', 'Format must be csv or jsonl.');
    const { query } = queryOf(formOf(request.query, [], Date.now()));
    const report = await d.merchant.report(d.session(request), query);
    return d.secure(reply).headers(downloadHeaders(report.apiId, 'ledger', query.from, query.to, format)).send(exportStream(ledgerLines(report.rows()), LEDGER_COLUMNS, format));
  });
}
