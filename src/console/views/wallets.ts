// The wallets pages: every wallet of the profile with its balance, the form that adds one, and one wallet's
// settings form and received-per-day chart.
import { escapeHtml as e } from '../../pages/html.ts';
import type { WalletOverview } from '../../dashboard/merchant-wallets.ts';
import type { ReceivedPerDay } from '../../dashboard/received-per-day.ts';
import { consolePage, csrfField, type Shell } from './layout.ts';
import { renderReceivedChart } from './chart.ts';

type Base = Omit<Shell, 'title' | 'section'>;

function coin(w: WalletOverview): string {
  return w.mode === 'live' ? 'BTC' : 'testBTC';
}

function local(value: string | null, currency: string): string {
  return value === null ? '<span class="muted">no current rate</span>' : `${e(value)} ${e(currency.toUpperCase())}`;
}

function walletCard(w: WalletOverview): string {
  return `<article class="panel wallet" aria-labelledby="w-${e(w.api_id)}">
  <h2 id="w-${e(w.api_id)}"><a href="/console/wallets/${encodeURIComponent(w.api_id)}">${e(w.account_name ?? 'Unnamed wallet')}</a></h2>
  <dl class="facts">
    <div><dt>Type</dt><dd>${e(w.wallet_type)}</dd></div>
    <div><dt>Network</dt><dd>${e(w.network)} (${w.mode === 'live' ? 'live' : 'sandbox'})</dd></div>
    <div><dt>Local currency</dt><dd>${e(w.local_currency.toUpperCase())}</dd></div>
    <div><dt>Settlement</dt><dd>${e(w.settlement_mode === 'custodial' ? 'held by the service' : 'direct to your key')}</dd></div>
    <div><dt>Confirmed balance</dt><dd class="balance"><span class="btc">${e(w.balance.confirmed)} ${coin(w)}</span> <span class="local">${local(w.balance.confirmed_local, w.local_currency)}</span></dd></div>
    <div><dt>Unconfirmed</dt><dd class="balance"><span class="btc">${e(w.balance.unconfirmed)} ${coin(w)}</span> <span class="local">${local(w.balance.unconfirmed_local, w.local_currency)}</span></dd></div>
    <div class="wide"><dt>API ID</dt><dd><code>${e(w.api_id)}</code></dd></div>
  </dl>
</article>`;
}

/** The wallet list with the add form. */
export function renderWallets(base: Base, wallets: WalletOverview[], form: { pub?: string; account_name?: string; local_currency?: string } = {}): string {
  const csrf = base.user!.csrf;
  const list = wallets.length
    ? `<div class="grid">${wallets.map(walletCard).join('\n')}</div>`
    : '<p class="panel">No wallets yet. Add your wallet\'s extended public key below.</p>';
  const body = `${list}
<section class="panel" aria-labelledby="add-title">
  <h2 id="add-title">Add a wallet</h2>
  <p class="hint">A key is added when it is new here, or when it was registered with your e-mail (${e(base.user!.email)}) as its notification e-mail. Knowing a key is not proof of owning it; for other keys, ask the operator.</p>
  <form method="post" action="/console/wallets" class="form">
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
        <label for="add-currency">Local currency (optional, e.g. usd)</label>
        <input id="add-currency" name="local_currency" type="text" maxlength="3" autocomplete="off" value="${e(form.local_currency ?? '')}">
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
</section>`;
  return consolePage({ ...base, title: 'Wallets', section: 'wallets' }, body);
}

/** One wallet: settings form and chart. */
export function renderWallet(base: Base, w: WalletOverview, chart: ReceivedPerDay): string {
  const csrf = base.user!.csrf;
  const body = `${walletCard(w)}
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
        <label for="local_currency">Local currency</label>
        <input id="local_currency" name="local_currency" type="text" maxlength="3" required autocomplete="off" value="${e(w.local_currency)}">
      </div>
    </div>
    <div class="field">
      <label for="notification_email">Notification e-mail (empty: none)</label>
      <input id="notification_email" name="notification_email" type="email" maxlength="254" value="${e(w.notification_email ?? '')}">
    </div>
    <div class="field">
      <label for="webhook_url">Webhook URL for payment updates (empty: none)</label>
      <input id="webhook_url" name="webhook_url" type="url" maxlength="2048" value="${e(w.webhook_url ?? '')}">
    </div>
    <button type="submit" class="button">Save settings</button>
  </form>
</section>`;
  return consolePage({ ...base, title: w.account_name ?? 'Wallet', section: 'wallets' }, body);
}
