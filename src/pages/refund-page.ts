// The refund page (`/refund/:token`): the payer sees the amount and enters the address to refund to, once.
// Same rules as the payment page (shared skeleton, strict CSP, no inline code, everything escaped, the payer's
// language); the script posts operation 25 and shows its answer in the words the page hands it.
import { escapeHtml as e, jsonForScript } from './html.ts';
import { DEFAULT_ASSET_URLS, documentHtml, languagePicker, messagePage, type PageAssetUrls } from './payment-page.ts';
import { messagesFor, type Messages } from './messages.ts';
import { DEFAULT_LANGUAGE } from './locales/index.ts';
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

/** How the network's addresses begin: what the payer checks their address against. Never translated. */
const PREFIXES: Record<Network, readonly string[]> = {
  mainnet: ['bc1…', '1…', '3…'],
  testnet4: ['tb1…', 'm…', 'n…', '2…'],
  signet: ['tb1…', 'm…', 'n…', '2…'],
  regtest: ['bcrt1…', 'm…', 'n…', '2…'],
};

const ENGLISH = (): Messages => messagesFor(DEFAULT_LANGUAGE);

/** "bc1…, 1… or 3…" in the page's language (the list's words translated, the prefixes not). */
export function prefixList(network: Network, m: Messages = ENGLISH()): string {
  const [first = '', second = '', third = '', fourth] = PREFIXES[network];
  return fourth === undefined ? m.t('refund.prefixList', { first, second, third }) : m.t('refund.prefixListFour', { first, second, third, fourth });
}

/** The words for a refund's state. */
export function refundHeadline(view: Pick<RefundPageView, 'status' | 'refund_addr' | 'confirmed'>, m: Messages = ENGLISH()): { headline: string; detail: string } {
  if (!view.refund_addr) return { headline: m.t('refund.headline.whereToSend'), detail: m.t('refund.detail.enterOwnAddressCannotChange') };
  if (view.status === 'Scheduled') return { headline: m.t('refund.headline.scheduled'), detail: m.t('refund.detail.willBeSentToAddressBelow') };
  if (view.confirmed) return { headline: m.t('refund.headline.sentAndConfirmed'), detail: m.t('refund.detail.transactionConfirmed') };
  return { headline: m.t('refund.headline.sent'), detail: m.t('refund.detail.onItsWay') };
}

/** The full HTML of the refund page. */
export function renderRefundPage(token: string, view: RefundPageView, assets: PageAssetUrls = DEFAULT_ASSET_URLS, m: Messages = ENGLISH()): string {
  const words = refundHeadline(view, m);
  const hidden = (show: boolean) => (show ? '' : ' hidden');
  const coin = view.network === 'mainnet' ? 'BTC' : 'testBTC';
  // The script's words come from here (no second copy in JavaScript).
  const copy = {
    scheduled: refundHeadline({ status: 'Scheduled', refund_addr: '-', confirmed: false }, m),
    processing: refundHeadline({ status: 'Processing', refund_addr: '-', confirmed: false }, m),
    enterAddress: m.t('refund.enterYourAddress'),
    notAccepted: m.t('refund.addressNotAccepted'),
    otherNetwork: m.t('refund.addressForAnotherNetwork', { prefixes: prefixList(view.network, m) }),
    notSent: m.t('refund.addressCouldNotBeSent'),
  };
  // The beginnings of this network's addresses let the script say why a refused address was refused (operation 25's
  // own words are for merchants, in English).
  const prefixes = PREFIXES[view.network].map((p) => p.replace('…', ''));
  const state = { token, api: '/set_refund_addr', network: view.network, prefixes, copy };
  const named = view.site_name.trim() !== '';
  const title = named ? m.t('refund.refundFromShop', { shop: view.site_name }) : m.t('refund.refund');
  const MARK = '\u0000shop\u0000';
  const [before = '', after = ''] = m.t('refund.refundFromShop', { shop: MARK }).split(MARK);
  const from = named ? `${e(before)}<bdi>${e(view.site_name)}</bdi>${e(after)}` : e(m.t('refund.refund'));
  const body = `<main class="card" id="refund" data-status="${e(view.status)}">
  <header class="head">
    <p class="eyebrow">${from}</p>
    <h1 dir="ltr"><span id="refund-amount">${e(m.crypto(view.refund_amount))}</span> <span class="unit">${e(coin)}</span></h1>
  </header>
  <section class="status" aria-labelledby="status-headline">
    <div id="status-live" role="status" aria-live="polite" aria-atomic="true">
      <h2 id="status-headline">${e(words.headline)}</h2>
      <p id="status-detail">${e(words.detail)}</p>
    </div>
  </section>
  <form id="refund-form" class="pay" method="post" novalidate${hidden(!view.refund_addr)}>
    <div class="field">
      <label class="label" for="refund-addr">${e(m.t('refund.yourBitcoinAddress', { prefixes: prefixList(view.network, m) }))}</label>
      <input id="refund-addr" name="refund_addr" type="text" dir="ltr" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="100" inputmode="text" aria-describedby="form-error">
    </div>
    <p id="form-error" class="feedback" role="alert"></p>
    <button id="refund-submit" type="submit" class="button">${e(m.t('refund.sendMyRefundHere'))}</button>
  </form>
  <section id="refund-result" class="pay" aria-label="${e(m.t('refund.refundDetails'))}"${hidden(Boolean(view.refund_addr))}>
    <div class="field">
      <p class="label">${e(m.t('refund.address'))}</p>
      <p class="value" dir="ltr"><code id="refund-address" class="address">${e(view.refund_addr)}</code></p>
    </div>
    <div class="field" id="txid-field"${hidden(Boolean(view.tx_id))}>
      <p class="label">${e(m.t('refund.transactionId'))}</p>
      <p class="value" dir="ltr"><code id="refund-txid" class="address">${e(view.tx_id)}</code></p>
    </div>
  </section>
  <noscript><p class="note">${e(m.t('refund.needsJavaScript'))}</p></noscript>
</main>
${languagePicker(m)}
<script type="application/json" id="page-data">${jsonForScript(state)}</script>`;
  return documentHtml(title, assets, body, true, assets.refundJs ?? '/pay/assets/refund.js', m);
}

/** The page for an unknown refund token (with HTTP 404). */
export function renderRefundNotFound(assets: PageAssetUrls = DEFAULT_ASSET_URLS, m: Messages = ENGLISH()): string {
  return messagePage('not-found', m.t('refund.notFoundTitle'), m.t('refund.notFoundText'), assets, m);
}
