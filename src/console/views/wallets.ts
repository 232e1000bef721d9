// The wallets pages: every wallet of the profile with its balance, the form that adds one, and one wallet's
// settings form and received-per-day chart.
import { escapeHtml as e } from '../../pages/html.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import type { ReceivedPerDay } from '../../dashboard/received-per-day.ts';
import { consolePage, csrfField, offers, when, type Shell } from './layout.ts';
import { renderReceivedChart } from './chart.ts';
import { fiatForDisplay } from '../../money/fiat-display.ts';
import { LANGUAGES } from '../../i18n/languages.ts';

type Base = Omit<Shell, 'title' | 'section'>;

function coin(w: WalletOverview): string {
  return w.mode === 'live' ? 'BTC' : 'testBTC';
}

function local(value: string | null, currency: string): string {
  return value === null ? '<span class="muted">no current rate</span>' : `${e(fiatForDisplay(value, currency))} ${e(currency.toUpperCase())}`;
}

/** The warning that the name payers see was changed without a sign-in (add_pub), until the owner saves it. */
function nameCheck(w: WalletOverview): string {
  const check = w.account_name_check;
  if (!check) return '';
  const previous = check.previous === null ? 'no name' : `"${check.previous}"`;
  return `<div class="flash error" role="alert"><p>Name changed without sign-in on ${e(when(Date.parse(check.changed_at)))} (through add_pub), from ${e(previous)}: payers see this name, check it. Save the name below to confirm or correct it.</p></div>`;
}

/** A multisig wallet's cosigners by master fingerprint and path, as signers and PSBTs name them. */
function cosigners(w: WalletOverview): string {
  if (!w.cosigners?.length) return '';
  return `<div class="wide"><dt>Cosigners</dt><dd><ul class="cosigners">${w.cosigners.map((c) => `<li><code>${e(c)}</code></li>`).join('')}</ul></dd></div>`;
}

/** A wallet's card; its name links to the settings page only for a role that may change them (the page is refused otherwise). */
function walletCard(w: WalletOverview, settings: boolean): string {
  const name = e(w.account_name ?? 'Unnamed wallet');
  return `<article class="panel wallet" aria-labelledby="w-${e(w.api_id)}">
  <h2 id="w-${e(w.api_id)}">${settings ? `<a href="/console/wallets/${encodeURIComponent(w.api_id)}">${name}</a>` : name}</h2>
  ${nameCheck(w)}
  <dl class="facts">
    <div><dt>Type</dt><dd>${e(w.wallet_type)}</dd></div>
    ${cosigners(w)}
    <div><dt>Network</dt><dd>${e(w.network)} (${w.mode === 'live' ? 'live' : 'sandbox'})</dd></div>
    <div><dt>Local currency</dt><dd>${e(w.local_currency.toUpperCase())}</dd></div>
    <div><dt>Settlement</dt><dd>${e(w.settlement_mode === 'custodial' ? 'held by the service' : 'direct to your key')}</dd></div>
    <div><dt>Confirmed balance</dt><dd class="balance"><span class="btc">${e(w.balance.confirmed)} ${coin(w)}</span> <span class="local">${local(w.balance.confirmed_local, w.local_currency)}</span></dd></div>
    <div><dt>Unconfirmed</dt><dd class="balance"><span class="btc">${e(w.balance.unconfirmed)} ${coin(w)}</span> <span class="local">${local(w.balance.unconfirmed_local, w.local_currency)}</span></dd></div>
    <div class="wide"><dt>API ID</dt><dd><code>${e(w.api_id)}</code></dd></div>
  </dl>
</article>`;
}

/** The local currencies offered as suggestions in the currency fields (the server checks them anyway). */
function currencyList(currencies: readonly string[]): string {
  if (currencies.length === 0) return '';
  return `<datalist id="currency-list">${currencies.map((c) => `<option value="${e(c.toLowerCase())}">${e(c)}</option>`).join('')}</datalist>`;
}

/** The accepted currencies in a field's label while the list is short; a long one is only offered as suggestions. */
function accepted(currencies: readonly string[]): string {
  return currencies.length > 0 && currencies.length <= 10 ? `one of ${e(currencies.map((c) => c.toLowerCase()).join(', '))}` : 'e.g. usd';
}

type AddForm = { pub?: string; account_name?: string; local_currency?: string };

/** The form that adds a wallet by key, and the one that lets the service create one. */
function addForms(base: Base, form: AddForm, currencies: readonly string[]): string {
  const csrf = base.user!.csrf;
  return `<form method="post" action="/console/wallets" class="form">
    ${csrfField(csrf)}
    <div class="field">
      <label for="pub">Extended public key (xpub, ypub, zpub, or tpub, upub, vpub for sandbox)</label>
      <input id="pub" name="pub" type="text" required maxlength="200" autocomplete="off" autocapitalize="none" spellcheck="false" value="${e(form.pub ?? '')}">
    </div>
    <div class="row">
      <div class="field">
        <label for="add-name">Name (optional)</label>
        <input id="add-name" name="account_name" type="text" maxlength="100" value="${e(form.account_name ?? '')}">
      </div>
      <div class="field">
        <label for="add-currency">Local currency (optional, ${accepted(currencies)})</label>
        <input id="add-currency" name="local_currency" type="text" maxlength="3" autocomplete="off" list="currency-list" value="${e(form.local_currency ?? '')}">
      </div>
    </div>
    <button type="submit" class="button">Add wallet</button>
  </form>
  <form method="post" action="/console/wallets" class="form inline">
    ${csrfField(csrf)}
    <input type="hidden" name="pub" value="new_wallet">
    <div class="field check">
      <input id="new-test" name="test" type="checkbox" value="1" checked>
      <label for="new-test">Sandbox (testBTC)</label>
    </div>
    <button type="submit" class="button secondary">Create a wallet held by the service</button>
  </form>
  ${currencyList(currencies)}`;
}

/** The wallet list with the add form; with no wallet yet, how one is attached, and the form right there. */
export function renderWallets(base: Base, wallets: WalletOverview[], form: AddForm = {}, currencies: readonly string[] = []): string {
  const email = e(base.user!.email);
  const body = wallets.length
    ? `<div class="grid">${wallets.map((w) => walletCard(w, offers(base, 'change_settings', w.api_id))).join('\n')}</div>
<section class="panel" aria-labelledby="add-title">
  <h2 id="add-title">Add a wallet</h2>
  <p class="hint">A key is added when it is new here, or when it was registered with your e-mail (${email}) as its notification e-mail. Knowing a key is not proof of owning it; for other keys, ask the operator. Adding a key that is already yours saves the name and currency you give.</p>
  ${addForms(base, form, currencies)}
</section>`
    : `<section class="panel" id="no-wallets" aria-labelledby="add-title">
  <h2 id="add-title">No wallets yet: attach your first one</h2>
  <p>Your console shows the wallets attached to your profile. A wallet you registered with this e-mail (${email}) as its notification e-mail is not attached by itself: paste its extended public key below once and it appears here with its payments. A key new to this service is registered and attached at once.</p>
  <p class="hint">A key registered with another e-mail can only be attached by the operator (satgate wallet associate). No key at hand? Let the service create and hold a wallet for you.</p>
  ${addForms(base, form, currencies)}
</section>`;
  return consolePage({ ...base, title: 'Wallets', section: 'wallets' }, body);
}

/** Confirms the name as shown (the settings form saves it too); only while the name is flagged. */
function confirmName(w: WalletOverview, csrf: string): string {
  if (!w.account_name_check) return '';
  return `<form method="post" action="/console/wallets/${encodeURIComponent(w.api_id)}" class="form inline">
    ${csrfField(csrf)}
    <input type="hidden" name="account_name" value="${e(w.account_name ?? '')}">
    <button type="submit" class="button secondary">The name ${e(w.account_name === null ? '(none)' : `"${w.account_name}"`)} is right</button>
  </form>`;
}

/** One wallet: settings form and chart. */
export function renderWallet(base: Base, w: WalletOverview, chart: ReceivedPerDay, currencies: readonly string[] = []): string {
  const csrf = base.user!.csrf;
  const body = `${walletCard(w, true)}
${confirmName(w, csrf)}
${offers(base, 'manage_members', w.api_id) ? `<p><a href="/console/wallets/${encodeURIComponent(w.api_id)}/members">Members and roles</a></p>` : ''}
${offers(base, 'view_audit', w.api_id) ? `<p><a href="/console/wallets/${encodeURIComponent(w.api_id)}/audit">Audit trail</a></p>` : ''}
<section class="panel" aria-labelledby="chart-h">
  <h2 id="chart-h">Received in the last 30 days</h2>
  ${renderReceivedChart(chart)}
</section>
<section class="panel" aria-labelledby="edit-h">
  <h2 id="edit-h">Settings</h2>
  <form method="post" action="/console/wallets/${encodeURIComponent(w.api_id)}" class="form">
    ${csrfField(csrf)}
    <div class="row">
      <div class="field">
        <label for="account_name">Name</label>
        <input id="account_name" name="account_name" type="text" maxlength="100" value="${e(w.account_name ?? '')}">
      </div>
      <div class="field">
        <label for="local_currency">Local currency (${accepted(currencies)})</label>
        <input id="local_currency" name="local_currency" type="text" maxlength="3" required autocomplete="off" list="currency-list" value="${e(w.local_currency)}">
      </div>
    </div>
    <div class="field">
      <label for="notification_email">Notification e-mail (empty: none)</label>
      <input id="notification_email" name="notification_email" type="email" maxlength="254" value="${e(w.notification_email ?? '')}">
    </div>
    <div class="field">
      <label for="webhook_url">Webhook URL for payment updates (empty: none; only changed here, never by add_pub)</label>
      <input id="webhook_url" name="webhook_url" type="url" maxlength="2048" value="${e(w.webhook_url ?? '')}">
    </div>
    <div class="field">
      <label for="default_language">Payers' language when they chose none (before their browser's)</label>
      ${languageSelect(w.default_language)}
    </div>
    <button type="submit" class="button">Save settings</button>
  </form>
  ${currencyList(currencies)}
</section>`;
  return consolePage({ ...base, title: w.account_name ?? 'Wallet', section: 'wallets' }, body);
}

/** The default language picker: every offered language by its own name, or none (the payer's browser decides). */
function languageSelect(current: string | null): string {
  const option = (value: string, label: string, lang = '') =>
    `<option value="${e(value)}"${lang ? ` lang="${e(lang)}"` : ''}${value === (current ?? '') ? ' selected' : ''}>${e(label)}</option>`;
  const options = [option('', "None: the payer's browser decides"), ...LANGUAGES.map((l) => option(l.tag, `${l.name} (${l.tag})`, l.tag))];
  return `<select id="default_language" name="default_language">${options.join('')}</select>`;
}
