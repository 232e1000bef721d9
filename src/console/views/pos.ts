// The Point of sale page: the form that defines a counter app on one of the merchant's wallets (items one per line,
// or the keypad-only mode; tips; default language) and each app with its counter link (open it on the tablet).
import { escapeHtml as e } from '../../pages/html.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import { LANGUAGES } from '../../i18n/languages.ts';
import { tipPresetsOf, type PosView } from '../../pos/pos-apps.ts';
import { consolePage, csrfField, offers, when, type Shell } from './layout.ts';

type Base = Omit<Shell, 'title' | 'section'>;

/** The form's values as typed (kept on a refusal so nothing is lost). */
export interface PosForm {
  api_id: string;
  title: string;
  description: string;
  currency: string;
  mode: string;
  items: string;
  custom_amount: boolean;
  tip_presets: string;
  custom_tip: boolean;
  default_language: string;
}

export const EMPTY_POS_FORM: PosForm = { api_id: '', title: '', description: '', currency: '', mode: 'items', items: '', custom_amount: false, tip_presets: '5, 10, 15', custom_tip: true, default_language: '' };

export function renderPos(base: Base, wallets: WalletOverview[], apps: PosView[], form: PosForm, publicUrl: string): string {
  if (wallets.length === 0) {
    return consolePage({ ...base, title: 'Point of sale', section: 'pos' }, '<p class="panel">You have no wallet yet: <a href="/console/wallets">add one</a>, and you can sell in person from it here.</p>');
  }
  // Defining a counter is a setting of its wallet: offered for the wallets whose settings the member may change.
  const definable = wallets.filter((w) => offers(base, 'change_settings', w.api_id));
  const options = definable.map((w) => `<option value="${e(w.api_id)}"${w.api_id === form.api_id ? ' selected' : ''}>${e(w.account_name ?? w.api_id)} (${e(w.api_id)})</option>`).join('');
  const languages = [`<option value="">The payer's browser decides</option>`, ...LANGUAGES.map((l) => `<option value="${e(l.tag)}"${l.tag === form.default_language ? ' selected' : ''}>${e(l.name)} (${e(l.tag)})</option>`)].join('');
  const root = publicUrl.replace(/\/$/, '');
  const list =
    apps.length === 0
      ? '<p>No point of sale yet.</p>'
      : apps
          .map((v) => {
            const link = `${root}/pos/${v.app.public_id}`;
            const mode = Number(v.app.keypad_only) === 1 ? 'keypad only' : `${v.items.length} item${v.items.length === 1 ? '' : 's'}`;
            const tips = tipPresetsOf(v.app);
            return `<section class="panel" aria-labelledby="pos-${e(v.app.app_id)}">
  <h2 id="pos-${e(v.app.app_id)}">${e(v.app.title)}</h2>
  <p>${e(v.app.currency)} · ${e(mode)} · tips ${e(tips.length ? tips.map((t) => `${t} %`).join(', ') : 'none')}${Number(v.app.custom_tip) === 1 ? ' and typed' : ''} · created ${e(when(Number(v.app.created_at)))}</p>
  <p>Counter link (open it on the counter's tablet; anyone with it can charge): <a href="${e(link)}">${e(link)}</a></p>
  ${v.items.length ? `<ul>${v.items.map((i) => `<li>${e(i.name)}: ${e(i.price)} ${e(v.app.currency)}${i.stock === null ? '' : ` · ${e(String(i.stock))} in stock`}</li>`).join('')}</ul>` : ''}
  ${offers(base, 'change_settings', v.storeId) ? `<form method="post" action="/console/pos/delete">${csrfField(base.user?.csrf ?? '')}<input type="hidden" name="pos_id" value="${e(v.app.public_id)}"><button type="submit" class="button secondary">Delete ${e(v.app.title)}</button></form>` : ''}
</section>`;
          })
          .join('\n');
  const creation = definable.length === 0 ? '' : `<form method="post" action="/console/pos" class="panel" aria-label="New point of sale">
    ${csrfField(base.user?.csrf ?? '')}
    <h2>New point of sale</h2>
    <p><label for="pos-wallet">Wallet</label> <select id="pos-wallet" name="api_id">${options}</select></p>
    <p><label for="pos-title">Title (what the payer sees)</label> <input id="pos-title" name="title" maxlength="100" required value="${e(form.title)}"></p>
    <p><label for="pos-description">Description (optional)</label> <input id="pos-description" name="description" maxlength="1000" value="${e(form.description)}"></p>
    <p><label for="pos-currency">Currency (BTC or a fiat code such as EUR)</label> <input id="pos-currency" name="currency" maxlength="4" size="5" required value="${e(form.currency)}"></p>
    <fieldset><legend>What the counter sells</legend>
      <p><input type="radio" id="pos-mode-items" name="mode" value="items"${form.mode !== 'keypad' ? ' checked' : ''}> <label for="pos-mode-items">Items from a list</label></p>
      <p><input type="radio" id="pos-mode-keypad" name="mode" value="keypad"${form.mode === 'keypad' ? ' checked' : ''}> <label for="pos-mode-keypad">A keypad only (the cashier types the amount)</label></p>
    </fieldset>
    <p><label for="pos-items">Items, one per line: name | price | stock (empty: not counted) | image URL (https, optional) | description (optional)</label>
      <textarea id="pos-items" name="items" rows="6" spellcheck="false" placeholder="Coffee | 3.50 | 40&#10;Pastel de nata | 1.80 |  | https://example.com/nata.jpg">${e(form.items)}</textarea></p>
    <p><input id="pos-custom-amount" name="custom_amount" type="checkbox" value="1"${form.custom_amount ? ' checked' : ''}> <label for="pos-custom-amount">The cashier may also type an amount beside the items</label></p>
    <p><label for="pos-tips">Tip presets in percent (comma separated; empty for none)</label> <input id="pos-tips" name="tip_presets" value="${e(form.tip_presets)}"></p>
    <p><input id="pos-custom-tip" name="custom_tip" type="checkbox" value="1"${form.custom_tip ? ' checked' : ''}> <label for="pos-custom-tip">The payer may type a tip amount</label></p>
    <p><label for="pos-language">Default language of the counter page</label> <select id="pos-language" name="default_language">${languages}</select></p>
    <p><button type="submit" class="button">Create the point of sale</button></p>
  </form>`;
  const body = `${creation}
  ${list}`;
  return consolePage({ ...base, title: 'Point of sale', section: 'pos' }, body);
}
