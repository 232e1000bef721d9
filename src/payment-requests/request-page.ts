// The payer's page of a payment request (/request/<id>): what is owed, what was paid so far (each part at the rate
// of its moment), and plain HTML forms to pay what is due or, when allowed, a part of it. No script: paying opens
// the hosted payment page of the part, which does the live work.
import { escapeHtml as e } from '../pages/html.ts';
import { DEFAULT_ASSET_URLS, documentHtml, languagePicker, type PageAssetUrls } from '../pages/payment-page.ts';
import type { Messages } from '../pages/messages.ts';
import type { RequestView } from './payment-requests.ts';

/** What the page says instead of the pay forms, when it says something. */
export type PageNotice = 'bad-amount' | null;

/** The amount of the request's currency in the page's locale (BTC with its exact digits). */
function money(m: Messages, amount: string, currency: string): string {
  return `${currency === 'BTC' ? m.crypto(amount) : m.fiat(amount, currency)} ${currency}`;
}

/** The whole page. */
export function renderRequestPage(view: RequestView, m: Messages, notice: PageNotice = null, assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  const { row } = view;
  const base = `/request/${encodeURIComponent(row.request_id)}`;
  const cur = row.currency;
  const dueDate =
    row.due_at === null
      ? ''
      : `<p id="due-date">${e(m.t('request.dueBy', { date: new Intl.DateTimeFormat(m.lang, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(Number(row.due_at))) }))}</p>`;
  const withdrawn = row.archived_at !== null;
  const statusText = withdrawn ? m.t('request.withdrawn') : view.status === 'Completed' ? m.t('request.completed') : view.status === 'Expired' ? m.t('request.expired') : null;
  const parts = view.parts.filter((p) => p.paid || p.settled);
  const partList =
    parts.length === 0
      ? ''
      : `<section aria-labelledby="parts-heading">
    <h2 id="parts-heading">${e(m.t('request.parts'))}</h2>
    <ul id="parts">${parts
      .map(
        (p) =>
          `<li><bdi dir="ltr">${e(money(m, p.amount, cur))}</bdi> · <bdi dir="ltr">${e(m.crypto(p.btc))} BTC</bdi> · ${e(p.settled ? m.t('request.partPaid') : m.t('request.partOpen'))}</li>`,
      )
      .join('')}</ul>
  </section>`;
  const payable = statusText === null && view.due !== '0';
  const partial = Number(row.allow_partial) === 1;
  const forms = !payable
    ? ''
    : `<section id="pay-forms" aria-label="${e(m.t('request.payFull'))}">
    <form method="post" action="${e(base)}/pay"><button type="submit" class="button" id="pay-full">${e(m.t('request.payFull'))}</button></form>
    ${
      partial
        ? `<form method="post" action="${e(base)}/pay" id="pay-part-form">
      <label for="part-amount">${e(m.t('request.partAmount', { currency: cur }))}</label>
      <input id="part-amount" name="amount" inputmode="decimal" autocomplete="off" dir="ltr" required pattern="[0-9]+([.][0-9]+)?"${notice === 'bad-amount' ? ' aria-invalid="true" aria-describedby="pay-error"' : ''}>
      <button type="submit" class="button" id="pay-part">${e(m.t('request.payPart'))}</button>
    </form>`
        : ''
    }
    ${notice === 'bad-amount' ? `<p id="pay-error" class="error" role="alert">${e(m.t('request.badAmount'))}</p>` : ''}
  </section>`;
  const body = `<main class="card" id="payment-request" data-status="${e(view.status)}">
  <header class="head">
    <p class="eyebrow">${e(m.t('request.heading'))}</p>
    <h1 id="request-title"><bdi>${e(row.title)}</bdi></h1>
  </header>
  ${row.description !== null ? `<p id="request-description"><bdi>${e(row.description)}</bdi></p>` : ''}
  <dl class="order">
    <div><dt>${e(m.t('request.amount'))}</dt><dd><bdi dir="ltr" id="request-amount">${e(money(m, row.amount, cur))}</bdi></dd></div>
    <div><dt>${e(m.t('request.paidSoFar'))}</dt><dd><bdi dir="ltr" id="request-paid">${e(money(m, view.paid, cur))}</bdi></dd></div>
    <div><dt>${e(m.t('request.amountDue'))}</dt><dd><bdi dir="ltr" id="request-due">${e(money(m, view.due, cur))}</bdi></dd></div>
  </dl>
  ${dueDate}
  ${statusText !== null ? `<p id="request-status" class="note" role="status">${e(statusText)}</p>` : ''}
  ${partList}
  ${forms}
</main>
${languagePicker(m)}`;
  return documentHtml(row.title, assets, body, false, assets.js, m);
}

/** The page for an unknown request id (HTTP 404). */
export function renderRequestNotFound(m: Messages, assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  const title = m.t('request.notFound');
  const body = `<main class="card" id="not-found">
  <h1>${e(title)}</h1>
</main>
${languagePicker(m)}`;
  return documentHtml(title, assets, body, false, assets.js, m);
}
