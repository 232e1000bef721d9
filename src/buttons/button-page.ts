// The payer's page of a pay button (GET /button/<id>): what it charges (or an amount field), and a "Pay" button that
// posts. Server-rendered, no script: nothing is created until the payer presses Pay.
import { escapeHtml as e } from '../pages/html.ts';
import { documentHtml, languagePicker, type PageAssetUrls } from '../pages/payment-page.ts';
import type { Messages } from '../pages/messages.ts';
import type { PublicButton } from './button-service.ts';

/** The button's page; `problem` (a refused amount) is shown above the field, `amount` echoes what was typed. */
export function renderButtonPage(b: PublicButton, assets: PageAssetUrls, m: Messages, problem?: string, amount?: string): string {
  const action = `/button/${encodeURIComponent(b.publicId)}`;
  const field =
    b.amount !== null
      ? `<p class="value" dir="ltr"><strong id="button-amount">${e(b.amount)}</strong> <span class="unit">${e(b.currency)}</span></p>`
      : `<div class="field">
      <label for="amount">${e(m.t('button.amountRange', { currency: b.currency, min: b.min ?? '', max: b.max ?? '' }))}</label>
      <input id="amount" name="amount" inputmode="decimal" required autocomplete="off" dir="ltr"${amount !== undefined ? ` value="${e(amount)}"` : ''}${problem ? ' aria-invalid="true" aria-describedby="amount-error"' : ''}>
    </div>`;
  const body = `<main class="card" id="pay-button">
  <h1>${e(b.label)}</h1>
  ${b.description ? `<p>${e(b.description)}</p>` : ''}
  <form method="post" action="${e(action)}">
    ${problem ? `<p id="amount-error" class="error" role="alert">${e(problem)}</p>` : ''}
    ${b.amount !== null ? `<p class="label">${e(m.t('button.amountLabel'))}</p>` : ''}
    ${field}
    <button type="submit" class="button">${e(m.t('button.pay'))}</button>
  </form>
</main>
${languagePicker(m)}`;
  return documentHtml(b.label, assets, body, false, assets.js, m);
}

/** A refusal as a page: title and the reason. */
export function renderButtonMessage(id: string, title: string, text: string, assets: PageAssetUrls, m: Messages): string {
  const body = `<main class="card" id="${e(id)}">
  <h1>${e(title)}</h1>
  <p role="alert">${e(text)}</p>
</main>
${languagePicker(m)}`;
  return documentHtml(title, assets, body, false, assets.js, m);
}
