// The payments list (payment requests, payment forms and set_addr orders in one list, filtered and paginated
// by the server, statuses kept fresh by console.js polling /console/orders.json) and one order's detail.
import { escapeHtml as e } from '../../pages/html.ts';
import { newToken } from '../../security/tokens.ts';
import type { OrderDetail, OrderPage, OrderPayer, OrderSummary } from '../../dashboard/merchant-orders.ts';
import { ORDER_LIST_STATUSES } from '../../dashboard/merchant-orders.ts';
import type { RefundListing } from '../../refunds/refunds.ts';
import { consolePage, csrfField, offers, statusBadge, when, type Shell } from './layout.ts';
import { fiatForDisplay } from '../../money/fiat-display.ts';

type Base = Omit<Shell, 'title' | 'section'>;

const KIND_NAMES: Record<string, string> = { payment: 'Payment request', form: 'Payment form', order: 'Address order' };

/** The list's filters as the page and its links carry them. */
export interface ListFilters {
  status?: string;
  from?: string;
  to?: string;
}

/** The path of an order's detail page. */
export function orderPath(o: { kind: string; id: string }): string {
  return `/console/orders/${o.kind}/${o.id}`;
}

function query(filters: ListFilters, page?: number): string {
  const q = new URLSearchParams();
  if (filters.status) q.set('status', filters.status);
  if (filters.from) q.set('from', filters.from);
  if (filters.to) q.set('to', filters.to);
  if (page !== undefined && page > 1) q.set('page', String(page));
  const s = q.toString();
  return s ? `?${s}` : '';
}

function row(o: OrderSummary): string {
  return `<tr data-key="${e(`${o.kind}:${o.id}`)}">
  <td data-label="Order"><a href="${orderPath(o)}">${e(KIND_NAMES[o.kind] ?? o.kind)} ${e(o.reference || `#${o.id}`)}</a></td>
  <td class="status-cell" data-label="Status">${statusBadge(o.status)}</td>
  <td class="num" data-label="Amount">${o.amount ? `${e(fiatForDisplay(o.amount, o.currency))} ${e(o.currency)}` : '<span class="muted">any amount</span>'}</td>
  <td data-label="Wallet">${e(o.account_name ?? o.api_id)}</td>
  <td data-label="Created"><time datetime="${new Date(o.created_at).toISOString()}">${e(when(o.created_at))}</time></td>
</tr>`;
}

/** The payments list page. */
export function renderOrders(base: Base, page: OrderPage, filters: ListFilters): string {
  const pages = Math.max(1, Math.ceil(page.total / page.page_size));
  const option = (s: string) => `<option value="${e(s)}"${filters.status === s ? ' selected' : ''}>${e(s.replace(/_/g, ' '))}</option>`;
  const table = page.orders.length
    ? `<div class="table-wrap"><table id="orders" class="cards" data-poll="/console/orders.json${e(query(filters, page.page))}">
  <caption class="visually-hidden">Payments and orders, newest first</caption>
  <thead><tr><th scope="col">Order</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Wallet</th><th scope="col">Created</th></tr></thead>
  <tbody>
${page.orders.map(row).join('\n')}
  </tbody>
</table></div>`
    : '<p class="panel">No payments or orders match.</p>';
  const nav =
    pages > 1
      ? `<nav class="pager" aria-label="Pages">
  ${page.page > 1 ? `<a href="/console/orders${e(query(filters, page.page - 1))}" rel="prev">Newer</a>` : ''}
  <span>Page ${page.page} of ${pages}</span>
  ${page.page < pages ? `<a href="/console/orders${e(query(filters, page.page + 1))}" rel="next">Older</a>` : ''}
</nav>`
      : '';
  const body = `<form method="get" action="/console/orders" class="panel filters" role="search" aria-label="Filter payments">
  <div class="field">
    <label for="f-status">Status</label>
    <select id="f-status" name="status">
      <option value="">any</option>
      ${ORDER_LIST_STATUSES.map(option).join('')}
    </select>
  </div>
  <div class="field">
    <label for="f-from">Created from</label>
    <input id="f-from" name="from" type="date" value="${e(filters.from ?? '')}">
  </div>
  <div class="field">
    <label for="f-to">Created until</label>
    <input id="f-to" name="to" type="date" value="${e(filters.to ?? '')}">
  </div>
  <button type="submit" class="button secondary">Filter</button>
</form>
<p id="live-note" class="hint" role="status" aria-live="polite">${e(String(page.total))} in total. Statuses update by themselves.</p>
${table}
${nav}`;
  return consolePage({ ...base, title: 'Payments', section: 'orders' }, body);
}

function explorerLink(base: string | null, txid: string): string {
  if (!base) return `<code class="txid">${e(txid)}</code>`;
  const href = base.includes('{txid}') ? base.replace('{txid}', txid) : `${base}${txid}`;
  return `<a href="${e(href)}" rel="noreferrer noopener" target="_blank"><code class="txid">${e(txid)}</code><span class="visually-hidden"> (block explorer, opens a new tab)</span></a>`;
}

/** What the payer typed into the form (or the shop sent about them), escaped like every other value. */
function payerSection(payer: OrderPayer | null): string {
  if (payer === null) return '';
  const note =
    payer.submitted_at !== null
      ? `<p class="hint">Submitted by the payer on ${e(when(payer.submitted_at))}.</p>`
      : '';
  const facts = payer.facts.length
    ? `<dl class="facts payer">${payer.facts.map((f) => `<div class="wide"><dt>${e(f.label)}</dt><dd class="pre">${e(f.value)}</dd></div>`).join('')}</dl>`
    : '<p>Nothing about the payer was given.</p>';
  return `<section class="panel" aria-labelledby="payer-h" id="payer"><h2 id="payer-h">Payer</h2>${note}${facts}</section>`;
}

/** Attempts shown without opening anything; earlier ones fold away so a long retry history stays short. */
const SHOWN_ATTEMPTS = 3;

type Attempt = OrderDetail['deliveries'][number]['attempts'][number];

/** An attempt's time: the date only when it differs from the attempt before (a retry history is mostly one day). */
function attemptTime(a: Attempt, previous: Attempt | undefined): string {
  const full = when(a.at);
  return previous && when(previous.at).slice(0, 10) === full.slice(0, 10) ? full.slice(11) : full;
}

function attemptItem(d: OrderDetail['deliveries'][number], a: Attempt, previous: Attempt | undefined): string {
  const answer = a.http_status !== null ? `HTTP ${a.http_status}` : d.kind === 'email' && !a.error ? 'sent' : 'no answer';
  // An error that only repeats the answer ("HTTP 502") says nothing more; one the attempt before had is not repeated.
  const repeated = previous !== undefined && previous.error === a.error && previous.http_status === a.http_status;
  const error = a.error && a.error !== answer ? ` <span class="small">(${repeated ? 'same error' : e(a.error)})</span>` : '';
  return `<li value="${a.attempt}"><time datetime="${new Date(a.at).toISOString()}">${e(attemptTime(a, previous))}</time>: ${answer}${error}</li>`;
}

function attemptList(d: OrderDetail['deliveries'][number]): string {
  if (d.attempts.length === 0) return '<ol class="attempts"><li>none yet</li></ol>';
  const earlier = d.attempts.slice(0, -SHOWN_ATTEMPTS);
  const latest = d.attempts.slice(-SHOWN_ATTEMPTS);
  const folded = earlier.length
    ? `<details class="earlier"><summary>${earlier.length} earlier ${earlier.length === 1 ? 'attempt' : 'attempts'}</summary><ol class="attempts">${earlier.map((a, i) => attemptItem(d, a, earlier[i - 1])).join('')}</ol></details>`
    : '';
  return `${folded}<ol class="attempts">${latest.map((a, i) => attemptItem(d, a, i === 0 ? undefined : latest[i - 1])).join('')}</ol>`;
}

/** The detail page of one order. */
export function renderOrderDetail(base: Base, o: OrderDetail, opts: { explorer: string | null; refunds: RefundListing[] }): string {
  const csrf = base.user!.csrf;
  const coin = o.mode === 'live' ? 'BTC' : 'testBTC';
  const path = orderPath(o);
  // Only what the member's role in this wallet allows is offered (the server refuses the rest anyway).
  const mayRefund = offers(base, 'refund', o.api_id);
  const mayRedeliver = offers(base, 'change_settings', o.api_id);
  const transitions = o.transitions.length
    ? `<div class="table-wrap"><table id="transitions" class="cards">
  <thead><tr><th scope="col">When</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Cause</th></tr></thead>
  <tbody>
${o.transitions.map((t) => `<tr class="transition"><td class="when" data-label="When">${e(when(t.at))}</td><td class="from" data-label="From">${t.from ? statusBadge(t.from) : '<span class="muted">created</span>'}</td><td class="to" data-label="To">${statusBadge(t.to)}</td><td class="cause" data-label="Cause">${e(t.cause.replace(/_/g, ' '))}</td></tr>`).join('\n')}
  </tbody></table></div>`
    : '<p>No status change yet.</p>';
  const refundsByTx = new Map<string, RefundListing[]>();
  for (const r of opts.refunds) refundsByTx.set(r.refunded_tx_id, [...(refundsByTx.get(r.refunded_tx_id) ?? []), r]);
  const txs = o.transactions.length
    ? o.transactions
        .map((t, i) => {
          const prefill = o.overpaid !== '0' && i === 0 ? o.overpaid : t.amount;
          const refunds = refundsByTx.get(t.txid) ?? [];
          return `<article class="tx" aria-labelledby="tx-${i}">
  <h3 id="tx-${i}">${e(t.amount)} ${coin}</h3>
  <dl class="facts">
    <div class="wide"><dt>Transaction</dt><dd>${explorerLink(opts.explorer, t.txid)}</dd></div>
    <div><dt>Output</dt><dd>${t.vout}</dd></div>
    <div><dt>Confirmations</dt><dd class="confirmations">${t.confirmations}${t.state === 'mempool' ? ' (in the mempool)' : ''}</dd></div>
    <div><dt>First seen</dt><dd>${e(when(t.first_seen_at))}</dd></div>
  </dl>
  ${refunds.length ? `<ul class="refunds">${refunds.map((r) => `<li>Refund of ${e(r.refund_amount)} ${coin}: ${statusBadge(r.status)}${r.refund_addr ? ` to <code>${e(r.refund_addr)}</code>` : ' (waiting for the payer\'s address)'}${r.tx_id ? ` in ${explorerLink(opts.explorer, r.tx_id)}` : ''}</li>`).join('')}</ul>` : ''}
  ${mayRefund ? `<form method="post" action="${path}/refund" class="form inline">
    ${csrfField(csrf)}
    <input type="hidden" name="tx_id" value="${e(t.txid)}">
    <input type="hidden" name="idempotency_key" value="${e(newToken(16))}">
    <div class="field">
      <label for="refund-${i}">Refund amount (${coin})${o.overpaid !== '0' && i === 0 ? ', prefilled with the overpaid part' : ''}</label>
      <input id="refund-${i}" name="refund_amount" type="text" inputmode="decimal" required maxlength="20" value="${e(prefill)}">
    </div>
    <button type="submit" class="button secondary">Request refund</button>
  </form>` : ''}
</article>`;
        })
        .join('\n')
    : '<p>No transaction to this address yet.</p>';
  const deliveries = o.deliveries.length
    ? `<div class="table-wrap"><table id="deliveries" class="cards">
  <thead><tr><th scope="col">Event</th><th scope="col">To</th><th scope="col">State</th><th scope="col">Attempts (response codes)</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>
${o.deliveries
  .map(
    (d) => `<tr data-event="${e(d.event_id)}">
  <td data-label="Event">${e(d.kind)}${d.status ? ` ${statusBadge(d.status)}` : ''}<br><code class="small">${e(d.event_id)}</code></td>
  <td class="wrap" data-label="To">${e(d.target)}</td>
  <td data-label="State">${e(d.state)}${d.next_attempt_at !== null ? `<br><span class="small">next ${e(when(d.next_attempt_at))}</span>` : ''}</td>
  <td class="attempts-cell" data-label="Attempts">${attemptList(d)}</td>
  <td class="action">${mayRedeliver ? `<form method="post" action="${path}/redeliver">${csrfField(csrf)}<input type="hidden" name="event_id" value="${e(d.event_id)}"><button type="submit" class="button secondary small">Redeliver<span class="visually-hidden"> ${e(d.event_id)}</span></button></form>` : ''}</td>
</tr>`,
  )
  .join('\n')}
  </tbody></table></div>`
    : '<p>No notifications for this order.</p>';
  const body = `<section class="panel" aria-labelledby="sum-h">
  <h2 id="sum-h">${e(KIND_NAMES[o.kind] ?? o.kind)} ${e(o.reference || `#${o.id}`)} ${statusBadge(o.status)}</h2>
  <dl class="facts">
    <div><dt>Amount</dt><dd>${o.amount ? `${e(fiatForDisplay(o.amount, o.currency))} ${e(o.currency)}` : 'any amount'}</dd></div>
    ${o.crypto_amount ? `<div><dt>Asked</dt><dd>${e(o.crypto_amount)} ${coin}</dd></div>` : ''}
    <div><dt>Received, confirmed</dt><dd>${e(o.received_confirmed)} ${coin}</dd></div>
    <div><dt>Received, unconfirmed</dt><dd>${e(o.received_unconfirmed)} ${coin}</dd></div>
    ${o.overpaid !== '0' ? `<div><dt>Overpaid</dt><dd>${e(o.overpaid)} ${coin}</dd></div>` : ''}
    <div><dt>Wallet</dt><dd>${offers(base, 'change_settings', o.api_id) ? `<a href="/console/wallets/${encodeURIComponent(o.api_id)}">${e(o.account_name ?? o.api_id)}</a>` : e(o.account_name ?? o.api_id)}</dd></div>
    <div><dt>Created</dt><dd>${e(when(o.created_at))}</dd></div>
    <div class="wide"><dt>Address</dt><dd><code class="address">${e(o.address)}</code></dd></div>
  </dl>
</section>
${payerSection(o.payer)}
<section class="panel" aria-labelledby="tr-h"><h2 id="tr-h">Status changes</h2>${transitions}</section>
<section class="panel" aria-labelledby="tx-h"><h2 id="tx-h">Transactions</h2>${txs}</section>
<section class="panel" aria-labelledby="dl-h"><h2 id="dl-h">Notifications</h2>${deliveries}</section>`;
  return consolePage({ ...base, title: 'Payment detail', section: 'orders' }, body);
}
