// The refund page (`/refund/:token`): the payer sees the amount and enters the address to refund to, once.
// Same rules as the payment page (shared skeleton, strict CSP, no inline code, everything escaped); the
// script posts operation 25 and shows its answer.
import { escapeHtml as e, jsonForScript } from './html.ts';
import { DEFAULT_ASSET_URLS, documentHtml, messagePage, type PageAssetUrls } from './payment-page.ts';
import type { Network } from '../bitcoin/networks.ts';

/** What the page shows of a refund. */
export interface RefundPageView {
  status: 'Scheduled' | 'Processing';
  tx_id: string;
  refund_amount: string;
  refund_addr: string;
  network: Network;
  site_name: string;
  confirmed: boolean;
}

const PREFIXES: Record<Network, string> = {
  mainnet: 'bc1…, 1… or 3…',
  testnet4: 'tb1…, m…, n… or 2…',
  signet: 'tb1…, m…, n… or 2…',
  regtest: 'bcrt1…, m…, n… or 2…',
};

/** The words for a refund's state. */
export function refundHeadline(view: Pick<RefundPageView, 'status' | 'refund_addr' | 'confirmed'>): { headline: string; detail: string } {
  if (!view.refund_addr) return { headline: 'Where should we send your refund?', detail: 'Enter a bitcoin address of your own wallet. It cannot be changed once set.' };
  if (view.status === 'Scheduled') return { headline: 'Refund scheduled', detail: 'The refund will be sent to the address below.' };
  if (view.confirmed) return { headline: 'Refund sent and confirmed', detail: 'The refund transaction is confirmed on the blockchain.' };
  return { headline: 'Refund sent', detail: 'The refund transaction is on its way; it confirms in about 10 minutes to an hour.' };
}

/** The full HTML of the refund page. */
export function renderRefundPage(token: string, view: RefundPageView, assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  const words = refundHeadline(view);
  const hidden = (show: boolean) => (show ? '' : ' hidden');
  const coin = view.network === 'mainnet' ? 'BTC' : 'testBTC';
  const state = { token, api: '/set_refund_addr', network: view.network };
  const from = view.site_name ? `Refund from ${view.site_name}` : 'Refund';
  const body = `<main class="card" id="refund" data-status="${e(view.status)}">
  <header class="head">
    <p class="eyebrow">${e(from)}</p>
    <h1><span id="refund-amount">${e(view.refund_amount)}</span> <span class="unit">${e(coin)}</span></h1>
  </header>
  <section class="status" aria-labelledby="status-headline">
    <div id="status-live" role="status" aria-live="polite" aria-atomic="true">
      <h2 id="status-headline">${e(words.headline)}</h2>
      <p id="status-detail">${e(words.detail)}</p>
    </div>
  </section>
  <form id="refund-form" class="pay" novalidate${hidden(!view.refund_addr)}>
    <div class="field">
      <label class="label" for="refund-addr">Your bitcoin address (${e(PREFIXES[view.network])})</label>
      <input id="refund-addr" name="refund_addr" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="100" inputmode="text" aria-describedby="form-error">
    </div>
    <p id="form-error" class="feedback" role="alert"></p>
    <button id="refund-submit" type="submit" class="button">Send my refund to this address</button>
  </form>
  <section id="refund-result" class="pay" aria-label="Refund details"${hidden(Boolean(view.refund_addr))}>
    <div class="field">
      <p class="label">Address</p>
      <p class="value"><code id="refund-address" class="address">${e(view.refund_addr)}</code></p>
    </div>
    <div class="field" id="txid-field"${hidden(Boolean(view.tx_id))}>
      <p class="label">Transaction id</p>
      <p class="value"><code id="refund-txid" class="address">${e(view.tx_id)}</code></p>
    </div>
  </section>
  <noscript><p class="note">This page needs JavaScript to send the address; your wallet app can also call the refund link's API.</p></noscript>
</main>
<script type="application/json" id="page-data">${jsonForScript(state)}</script>`;
  return documentHtml(from, assets, body, true, assets.refundJs ?? '/pay/assets/refund.js');
}

/** The page for an unknown refund token (with HTTP 404). */
export function renderRefundNotFound(assets: PageAssetUrls = DEFAULT_ASSET_URLS): string {
  return messagePage('not-found', 'Refund not found', 'There is no refund with this link. Check the link in the e-mail you received.', assets);
}
