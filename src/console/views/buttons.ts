// The pay buttons page: the form that defines a button on one of the merchant's wallets, and each button with the
// HTML to paste into any web page (a plain form, and for a fixed amount a link too: no script of ours needed).
import { escapeHtml as e } from '../../pages/html.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import type { PayButtonRow } from '../../buttons/button-service.ts';
import { consolePage, csrfField, when, type Shell } from './layout.ts';

type Base = Omit<Shell, 'title' | 'section'>;

/** What the form echoes after a refusal. */
export type ButtonFormEcho = Partial<Record<'api_id' | 'label' | 'description' | 'currency' | 'kind' | 'amount' | 'min_amount' | 'max_amount', string>>;

/** The snippet a merchant pastes: a form posting to the button, and a link for a fixed amount. */
export function buttonSnippets(publicUrl: string, b: Pick<PayButtonRow, 'public_id' | 'label' | 'currency' | 'amount' | 'min_amount' | 'max_amount'>): { form: string; link: string | null } {
  const url = `${publicUrl.replace(/\/+$/, '')}/button/${b.public_id}`;
  const amountField =
    b.amount === null
      ? `\n  <label>Amount (${e(b.currency)}, ${e(b.min_amount ?? '')} to ${e(b.max_amount ?? '')})\n    <input name="amount" inputmode="decimal" required>\n  </label>`
      : '';
  const form = `<form method="post" action="${e(url)}">${amountField}
  <button type="submit">${e(b.label)}${b.amount !== null ? ` (${e(b.amount)} ${e(b.currency)})` : ''}</button>
</form>`;
  // A link cannot post: it opens the button's page, where the payer presses Pay (nothing is created before).
  const link = b.amount !== null ? `<a href="${e(url)}">${e(b.label)} (${e(b.amount)} ${e(b.currency)})</a>` : null;
  return { form, link };
}

export function renderButtons(base: Base, publicUrl: string, buttons: (PayButtonRow & { api_id: string })[], wallets: WalletOverview[], echo: ButtonFormEcho = {}): string {
  const v = (k: keyof ButtonFormEcho) => e(echo[k] ?? '');
  const kind = echo.kind ?? 'fixed';
  const walletName = new Map(wallets.map((w) => [w.api_id, w.account_name ?? w.api_id]));
  const form = wallets.length
    ? `<section class="panel" aria-labelledby="new-button">
  <h2 id="new-button">New pay button</h2>
  <form method="post" action="/console/buttons" class="form">
    ${csrfField(base.user!.csrf)}
    <div class="field"><label for="api_id">Wallet</label>
      <select id="api_id" name="api_id">${wallets.map((w) => `<option value="${e(w.api_id)}"${echo.api_id === w.api_id ? ' selected' : ''}>${e(w.account_name ?? w.api_id)}</option>`).join('')}</select></div>
    <div class="field"><label for="label">Label (what the payer pays for)</label><input id="label" name="label" required maxlength="100" value="${v('label')}"></div>
    <div class="field"><label for="description">Description (optional)</label><input id="description" name="description" maxlength="500" value="${v('description')}"></div>
    <div class="field"><label for="currency">Currency (BTC or a fiat code such as EUR)</label><input id="currency" name="currency" required maxlength="4" value="${echo.currency !== undefined ? v('currency') : 'EUR'}"></div>
    <fieldset class="field"><legend>Amount</legend>
      <label><input type="radio" name="kind" value="fixed"${kind === 'fixed' ? ' checked' : ''}> A fixed amount</label>
      <label><input type="radio" name="kind" value="custom"${kind === 'custom' ? ' checked' : ''}> The payer chooses, between a minimum and a maximum</label>
    </fieldset>
    <div class="field"><label for="amount">Fixed amount</label><input id="amount" name="amount" inputmode="decimal" value="${v('amount')}"></div>
    <div class="field"><label for="min_amount">Minimum (payer chooses)</label><input id="min_amount" name="min_amount" inputmode="decimal" value="${v('min_amount')}"></div>
    <div class="field"><label for="max_amount">Maximum (payer chooses)</label><input id="max_amount" name="max_amount" inputmode="decimal" value="${v('max_amount')}"></div>
    <button type="submit" class="button">Create pay button</button>
  </form>
</section>`
    : '<p>Add a wallet first: a pay button pays into one of your wallets.</p>';
  const list = buttons.length
    ? buttons
        .map((b) => {
          const s = buttonSnippets(publicUrl, b);
          const amount = b.amount !== null ? `${b.amount} ${b.currency}` : `${b.min_amount} to ${b.max_amount} ${b.currency}, chosen by the payer`;
          return `<section class="panel" aria-labelledby="button-${e(b.public_id)}" data-button="${e(b.public_id)}">
  <h2 id="button-${e(b.public_id)}">${e(b.label)}</h2>
  <p>${e(amount)} · ${e(walletName.get(b.api_id) ?? b.api_id)} · created ${e(when(Number(b.created_at)))}</p>
  <div class="field"><label for="snippet-${e(b.public_id)}">HTML form to paste into your page</label>
    <textarea id="snippet-${e(b.public_id)}" readonly rows="5" spellcheck="false">${e(s.form)}</textarea></div>
  ${s.link !== null ? `<div class="field"><label for="link-${e(b.public_id)}">Or a link</label><textarea id="link-${e(b.public_id)}" readonly rows="2" spellcheck="false">${e(s.link)}</textarea></div>` : ''}
</section>`;
        })
        .join('\n')
    : '<p>No pay buttons yet.</p>';
  return consolePage({ ...base, title: 'Pay buttons', section: 'buttons' }, `${form}\n${list}`);
}
