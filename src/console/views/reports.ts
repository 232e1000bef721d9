// The Reports page: a form choosing a wallet, a period, a kind and a grouping; downloads of the ledger (CSV, JSON
// Lines) through the console's own route; and charts of what came in per day or month, in the wallet's currency at
// the rates of the moment each payment was seen and in bitcoin, with the same figures as a table. The figures are the
// ledger's own summaries (reports/exports.ts), with the periods that had nothing filled in as zeros.
import { escapeHtml as e } from '../../pages/html.ts';
import { parseDecimal } from '../../money/decimal.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import { REPORT_KINDS } from '../../dashboard/merchant-reports.ts';
import type { SummaryRow } from '../../reports/exports.ts';
import { consolePage, type Shell } from './layout.ts';
import { renderBarChart } from './chart.ts';

type Base = Omit<Shell, 'title' | 'section'>;

/** What the form holds, as typed (echoed back on an error). */
export interface ReportForm {
  api_id: string;
  /** First and last day, both included (YYYY-MM-DD, UTC). */
  from: string;
  to: string;
  kind: string;
  group: string;
}

/** The figures of a valid form. */
export interface ReportFigures {
  currency: string;
  coin: string;
  /** One row per period of the range, oldest first; a period without rows has zeros. */
  periods: SummaryRow[];
}

const KIND_LABELS: Record<string, string> = { all: 'All', receipt: 'Received', refund: 'Refunds', withdrawal: 'Withdrawals', spend: 'Other spends' };

/** A signed decimal as an integer of its own scale (a period's sums share one scale), for bar heights. */
function units(text: string): bigint {
  const negative = text.startsWith('-');
  const d = parseDecimal(negative ? text.slice(1) : text);
  return negative ? -d.units : d.units;
}

/** The query of the page's own links (downloads), from a form that was accepted. */
export function reportQuery(form: ReportForm, extra: Record<string, string> = {}): string {
  return new URLSearchParams({ api_id: form.api_id, from: form.from, to: form.to, kind: form.kind, group: form.group, ...extra }).toString();
}

function formPanel(wallets: WalletOverview[], form: ReportForm): string {
  const option = (value: string, label: string, current: string) => `<option value="${e(value)}"${value === current ? ' selected' : ''}>${e(label)}</option>`;
  return `<form method="get" action="/console/reports" class="panel filters" aria-label="Report">
  <div class="field">
    <label for="r-wallet">Wallet</label>
    <select id="r-wallet" name="api_id">
${wallets.map((w) => `      ${option(w.api_id, `${w.account_name ?? 'Unnamed wallet'} (${w.api_id})`, form.api_id)}`).join('\n')}
    </select>
  </div>
  <div class="field">
    <label for="r-from">From (UTC day, included)</label>
    <input type="date" id="r-from" name="from" value="${e(form.from)}" required>
  </div>
  <div class="field">
    <label for="r-to">To (UTC day, included)</label>
    <input type="date" id="r-to" name="to" value="${e(form.to)}" required>
  </div>
  <div class="field">
    <label for="r-kind">Kind</label>
    <select id="r-kind" name="kind">
${['all', ...REPORT_KINDS].map((k) => `      ${option(k, KIND_LABELS[k]!, form.kind)}`).join('\n')}
    </select>
  </div>
  <div class="field">
    <label for="r-group">Per</label>
    <select id="r-group" name="group">
      ${option('day', 'Day', form.group)}
      ${option('month', 'Month', form.group)}
    </select>
  </div>
  <button type="submit" class="button">Show</button>
</form>`;
}

function figuresPanel(form: ReportForm, f: ReportFigures): string {
  const unit = form.group === 'month' ? 'month' : 'day';
  const first = f.periods[0]?.period ?? '';
  const last = f.periods[f.periods.length - 1]?.period ?? '';
  const best = (pick: (p: SummaryRow) => bigint, text: (p: SummaryRow) => string, what: string) => {
    const top = f.periods.reduce<SummaryRow | null>((m, p) => (pick(p) > 0n && (m === null || pick(p) > pick(m)) ? p : m), null);
    return top === null ? `Nothing received from ${first} to ${last}.` : `Received per ${unit} from ${first} to ${last}, in ${what}; the highest was ${text(top)} on ${top.period}. The table below has every figure.`;
  };
  const fiatChart = renderBarChart({
    ids: { svg: 'report-fiat-chart', title: 'report-fiat-title', desc: 'report-fiat-desc' },
    title: `Received per ${unit} in ${f.currency} at the rates when each payment was seen`,
    summary: best((p) => units(p.fiat_in), (p) => `${p.fiat_in} ${f.currency}`, f.currency),
    note: 'Each payment is valued at the exchange rate of the moment it was first seen.',
    bars: f.periods.map((p) => ({ period: p.period, value: units(p.fiat_in), text: `${p.fiat_in} ${f.currency}` })),
  });
  const btcChart = renderBarChart({
    ids: { svg: 'report-btc-chart', title: 'report-btc-title', desc: 'report-btc-desc' },
    title: `Received per ${unit} in ${f.coin}`,
    summary: best((p) => units(p.btc_in), (p) => `${p.btc_in} ${f.coin}`, f.coin),
    note: 'Reversals (double spends, reorgs) count against the period they happened in.',
    bars: f.periods.map((p) => ({ period: p.period, value: units(p.btc_in), text: `${p.btc_in} ${f.coin}` })),
  });
  const rows = f.periods
    .filter((p) => p.count !== '0')
    .map(
      (p) =>
        `<tr><td data-label="${unit === 'day' ? 'Day' : 'Month'}">${e(p.period)}</td><td class="num" data-label="Entries">${e(p.count)}</td><td class="num" data-label="Received (${e(f.coin)})">${e(p.btc_in)}</td><td class="num" data-label="Received (${e(f.currency)})">${e(p.fiat_in)}</td><td class="num" data-label="Sent (${e(f.coin)})">${e(p.btc_out)}</td><td class="num" data-label="Fees (${e(f.coin)})">${e(p.fees_btc)}</td></tr>`,
    )
    .join('\n');
  return `<section class="panel" aria-labelledby="charts-h">
  <h2 id="charts-h">Received</h2>
  ${fiatChart}
  ${btcChart}
</section>
<section class="panel" aria-labelledby="figures-h">
  <h2 id="figures-h">Figures per ${unit}</h2>
  <div class="table-wrap">
  <table class="cards">
    <caption class="visually-hidden">The charts' figures: entries, amounts received (${e(f.currency)} at the rates when each payment was seen), sent and fees, per ${unit} (UTC)</caption>
    <thead><tr><th scope="col">${unit === 'day' ? 'Day' : 'Month'} (UTC)</th><th scope="col">Entries</th><th scope="col">Received (${e(f.coin)})</th><th scope="col">Received (${e(f.currency)})</th><th scope="col">Sent (${e(f.coin)})</th><th scope="col">Fees (${e(f.coin)})</th></tr></thead>
    <tbody>
${rows || '<tr><td colspan="6">No entries in this period.</td></tr>'}
    </tbody>
  </table>
  </div>
</section>`;
}

/** The Reports page; `figures` is null when the form was not valid (the error is in the shell's flash). */
export function renderReports(base: Base, wallets: WalletOverview[], form: ReportForm, figures: ReportFigures | null): string {
  if (wallets.length === 0) {
    return consolePage({ ...base, title: 'Reports', section: 'reports' }, '<p class="panel">You have no wallet yet: <a href="/console/wallets">add one</a>, and its reports show here.</p>');
  }
  const downloads = figures
    ? `<section class="panel" aria-labelledby="dl-h">
  <h2 id="dl-h">Download the ledger</h2>
  <p>Every ${form.kind === 'all' ? 'entry' : e(KIND_LABELS[form.kind]!.toLowerCase())} from ${e(form.from)} to ${e(form.to)}, with the columns of <code>satgate report ledger</code>.</p>
  <p class="actions"><a class="button" href="/console/reports/ledger?${e(reportQuery(form, { format: 'csv' }))}" download>Download CSV</a> <a class="button secondary" href="/console/reports/ledger?${e(reportQuery(form, { format: 'jsonl' }))}" download>Download JSON Lines</a></p>
</section>`
    : '';
  return consolePage({ ...base, title: 'Reports', section: 'reports' }, `${formPanel(wallets, form)}
${downloads}
${figures ? figuresPanel(form, figures) : ''}`);
}
