// The Payment requests page: the wallets' requests (status, amount, paid so far, the payer's link) and the form that
// creates one. Amounts are written as stored (exact decimals); dates in UTC.
import { escapeHtml as e } from '../../pages/html.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import type { RequestView } from '../../payment-requests/payment-requests.ts';
import { consolePage, csrfField, type Shell } from './layout.ts';

type Base = Omit<Shell, 'title' | 'section'>;

/** The create form's values as typed (kept on an error so nothing is lost). */
export interface RequestForm {
  api_id: string;
  title: string;
  amount: string;
  currency: string;
  description: string;
  due_date: string;
  payer_email: string;
  allow_partial: boolean;
}

const day = (ms: bigint | null) => (ms === null ? '' : new Date(Number(ms)).toISOString().slice(0, 10));

/** The page; `rows` pairs each request with its wallet's API ID. */
export function renderRequests(base: Base, wallets: WalletOverview[], rows: { apiId: string; view: RequestView }[], form: RequestForm, publicUrl: string): string {
  if (wallets.length === 0) {
    return consolePage({ ...base, title: 'Payment requests', section: 'requests' }, '<p class="panel">You have no wallet yet: <a href="/console/wallets">add one</a>, and you can bill your clients from it here.</p>');
  }
  const options = wallets
    .map((w) => `<option value="${e(w.api_id)}"${w.api_id === form.api_id ? ' selected' : ''}>${e(w.account_name ?? w.api_id)} (${e(w.api_id)})</option>`)
    .join('');
  const list =
    rows.length === 0
      ? '<p>No payment requests yet.</p>'
      : `<table>
    <caption>Payment requests, newest first</caption>
    <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Paid</th><th scope="col">Due date</th><th scope="col">Payer's page</th></tr></thead>
    <tbody>
${rows
  .map(({ view }) => {
    const link = `${publicUrl.replace(/\/$/, '')}/request/${view.row.request_id}`;
    return `      <tr><td>${e(view.row.title)}</td><td>${e(view.status)}</td><td>${e(view.row.amount)} ${e(view.row.currency)}</td><td>${e(view.paid)} ${e(view.row.currency)}</td><td>${e(day(view.row.due_at)) || '—'}</td><td><a href="${e(link)}">${e(link)}</a></td></tr>`;
  })
  .join('\n')}
    </tbody>
  </table>`;
  const body = `<form method="post" action="/console/requests" class="panel" aria-label="New payment request">
    ${csrfField(base.user?.csrf ?? '')}
    <h2>New payment request</h2>
    <p><label for="req-wallet">Wallet</label> <select id="req-wallet" name="api_id">${options}</select></p>
    <p><label for="req-title">Title</label> <input id="req-title" name="title" maxlength="200" required value="${e(form.title)}"></p>
    <p><label for="req-amount">Amount</label> <input id="req-amount" name="amount" inputmode="decimal" required value="${e(form.amount)}">
       <label for="req-currency">Currency</label> <input id="req-currency" name="currency" maxlength="3" size="4" required value="${e(form.currency)}"></p>
    <p><label for="req-description">Description</label> <textarea id="req-description" name="description" maxlength="5000">${e(form.description)}</textarea></p>
    <p><label for="req-due">Due date (optional)</label> <input id="req-due" name="due_date" type="date" value="${e(form.due_date)}"></p>
    <p><label for="req-email">Payer's e-mail (optional)</label> <input id="req-email" name="payer_email" type="email" value="${e(form.payer_email)}"></p>
    <p><input id="req-partial" name="allow_partial" type="checkbox" value="1"${form.allow_partial ? ' checked' : ''}> <label for="req-partial">Allow payment in parts</label></p>
    <p><button type="submit" class="button">Create the request</button></p>
  </form>
  <section class="panel" aria-label="Requests">
  ${list}
  </section>`;
  return consolePage({ ...base, title: 'Payment requests', section: 'requests' }, body);
}
