// The hosted payment page (`/pay/:payment_reference`) as a pure function of a payment's public
// data. No inline script or style, so the strict CSP of page-headers.ts holds; the browser
// script reads its state from a JSON data block and polls operations 27 and 29.

import { escapeHtml as e, jsonForScript, safeHttpUrl } from './html.ts';
import { PAGE_COPY, fillCopy, pageCopy, type PageCopy } from './page-copy.ts';
import { messagesFor, type Messages } from './messages.ts';
import { DEFAULT_LANGUAGE, LANGUAGES } from './locales/index.ts';
import { paymentView, type PaidAmounts } from './payment-view.ts';
import { PAYMENT_STATUS_GROUPS } from '../core/payment-statuses.ts';
import { fiatForDisplay } from '../money/fiat-display.ts';
import { walletUri } from './wallet-uri.ts';
import { isIso4217, minorUnits } from '../money/currencies.ts';

/** What the page needs to know about a hosted payment; amounts are decimal strings, dates ISO 8601. */
export interface PaymentPageData {
  reference: string;
  /** The wallet's account name: merchant input, always escaped. */
  site_name: string;
  order_amount: string;
  order_currency: string;
  crypto_amount: string;
  /** "" once the request is invalid. */
  crypto_address: string;
  crypto_currency: string;
  expiry_date: string;
  status: string;
  /** Merchant input: rendered as a link only when it is an http(s) URL. */
  success_url: string | null;
  cancel_url: string | null;
  amounts: PaidAmounts;
  /**
   * The transactions that paid to the payment's address (withdrawn ones left out), oldest first. The page's own
   * data: operation 27 does not carry them, so the script reads them from `/pay/:reference/received`. Absent: none.
   */
  txids?: readonly string[];
}

/** The page's own answer at `/pay/:reference/received`: what the script cannot read from operation 27. */
export interface ReceivedData {
  txids: readonly string[];
}

/** A transaction ID as the page shows it: its first and last 8 characters (the full ID is what gets copied). */
export function shortTxid(txid: string): string {
  return txid.length <= 20 ? txid : `${txid.slice(0, 8)}…${txid.slice(-8)}`;
}

/** One list item of the transaction list; the script builds the same (assets/page.js). */
function txidItem(copy: PageCopy, txid: string, index: number): string {
  return `<li><code id="txid-${index}" class="txid" dir="ltr" title="${e(txid)}" data-full="${e(txid)}">${e(shortTxid(txid))}</code>
      <button type="button" class="copy" data-copy="txid-${index}">${e(copy.copyTxid)}</button></li>`;
}

/** Where the page's static files are served (versioned paths, so they can be cached). */
export interface PageAssetUrls {
  css: string;
  js: string;
  /** The refund page's script. */
  refundJs?: string;
  /** The payment form page's script. */
  formJs?: string;
}

/** Rendering options: the server's clock, asset URLs and the status polling interval. */
export interface PaymentPageOptions {
  /** Epoch ms; the browser corrects its own clock by it for the countdown. */
  now: number;
  assets?: PageAssetUrls;
  pollIntervalMs?: number;
  /** Width in pixels asked of operation 28 (shown at half size, sharp on high-density screens). */
  qrWidth?: number;
  /** The payer's language (default English). */
  messages?: Messages;
}

/** Asset URLs when none are given. */
export const DEFAULT_ASSET_URLS: PageAssetUrls = { css: '/pay/assets/page.css', js: '/pay/assets/page.js' };

/** English, the language of a page rendered without one. */
const ENGLISH = (): Messages => messagesFor(DEFAULT_LANGUAGE);

/** The full HTML document of the hosted payment page for `data` at `opts.now`. */
export function renderPaymentPage(data: PaymentPageData, opts: PaymentPageOptions): string {
  const assets = opts.assets ?? DEFAULT_ASSET_URLS;
  const qrWidth = opts.qrWidth ?? 512;
  const m = opts.messages ?? ENGLISH();
  const copy = m.lang === DEFAULT_LANGUAGE ? PAGE_COPY : pageCopy(m);
  // One rule for every fiat amount on the page, the order total and the amounts still missing or paid over alike.
  const fiat = (amount: string, currency: string) => (m.lang === DEFAULT_LANGUAGE ? fiatForDisplay(amount, currency) : m.fiat(amount, currency));
  const view = paymentView(data, opts.now, copy, fiat);
  const apiPath = `/api/v1/payment/${encodeURIComponent(data.reference)}`;
  const success = safeHttpUrl(data.success_url);
  const cancel = safeHttpUrl(data.cancel_url);
  const expiryMs = Date.parse(data.expiry_date);
  // A wallet registered without an account name still reads as a sentence: "Continue to the shop".
  const named = data.site_name.trim() !== '';
  const site = e(data.site_name);
  const hidden = (show: boolean) => (show ? '' : ' hidden');

  const state = {
    reference: data.reference,
    api: apiPath,
    received: `/pay/${encodeURIComponent(data.reference)}/received`,
    txids: data.txids ?? [],
    status: data.status,
    expiry_ms: Number.isFinite(expiryMs) ? expiryMs : null,
    server_now_ms: opts.now,
    poll_ms: opts.pollIntervalMs ?? 4000,
    order_amount: data.order_amount,
    order_currency: data.order_currency,
    // The script pads the amounts it writes as the server does (money/fiat-display.ts); null: shown as they are.
    order_minor_units: isIso4217(data.order_currency.toUpperCase()) ? minorUnits(data.order_currency) : null,
    // ...then writes them in the page's locale as the server does (English: as money/fiat-display.ts, no grouping).
    locale: m.lang === DEFAULT_LANGUAGE ? null : m.lang,
    crypto_amount: data.crypto_amount,
    crypto_currency: data.crypto_currency,
    crypto_address: data.crypto_address,
    site_name: data.site_name,
    amounts: data.amounts,
    copy,
    // The status groups the script needs, from the one list (core/payment-statuses.ts).
    statuses: PAYMENT_STATUS_GROUPS,
  };

  const qr = view.showQr
    ? `<img id="qr-image" src="${e(`${apiPath}/qrcode?width=${qrWidth}`)}" width="${qrWidth / 2}" height="${qrWidth / 2}"
        alt="${e(m.t('common.qrCodeAlt', { amount: view.amountToSend, crypto_currency: data.crypto_currency, address: data.crypto_address }))}">`
    : '';
  const txids = data.txids ?? [];

  const body = `<main class="card" id="payment" data-phase="${e(view.phase)}" data-status="${e(data.status)}">
  <header class="head">
    ${named ? `<p class="eyebrow">${e(m.t('common.paymentTo'))}</p>
    <h1 id="site-name"><bdi>${site}</bdi></h1>` : `<h1 id="site-name">${e(m.t('common.bitcoinPayment'))}</h1>`}
  </header>
  ${data.crypto_currency === 'BTC' ? '' : `<p id="network-badge" class="badge">${e(copy.testBadge)}</p>`}
  <dl class="order">
    <div><dt>${e(m.t('common.orderTotal'))}</dt><dd><bdi dir="ltr"><span id="order-amount">${e(fiat(data.order_amount, data.order_currency))}</span> <span id="order-currency">${e(data.order_currency)}</span></bdi></dd></div>
    <div><dt>${e(m.t('common.reference'))}</dt><dd><code id="reference" dir="ltr">${e(data.reference)}</code></dd></div>
  </dl>
  <section class="status" aria-labelledby="status-headline">
    <div id="status-live" role="status" aria-live="polite" aria-atomic="true">
      <h2 id="status-headline">${e(view.headline)}</h2>
      <p id="status-detail">${e(view.detail)}</p>
      <p id="indicative" class="note" hidden></p>
    </div>
    <p id="connection" class="note" hidden></p>
    <p id="countdown-line"${hidden(view.showCountdown && !view.expired)}>${withCountdown(m, countdownText(expiryMs - opts.now, copy.expired))}</p>
  </section>
  <section id="paid" class="paid" aria-label="${e(m.t('payment.paymentReceived'))}"${hidden(view.paidCrypto !== '')}>
    <p id="paid-amount">${e(fillCopy(copy.paid, { paid_crypto: view.paidCrypto, crypto_currency: data.crypto_currency }))}</p>
    <div id="txids-block"${hidden(txids.length > 0)}>
      <p class="label" id="txids-label">${e(copy.transactions)}</p>
      <ul id="txids" class="txids" aria-labelledby="txids-label">${txids.map((t, i) => txidItem(copy, t, i)).join('')}</ul>
    </div>
  </section>
  <section id="pay" class="pay" aria-label="${e(m.t('common.howToPay'))}"${hidden(view.showPay)}>
    <figure id="qr" class="qr"${hidden(view.showQr)}>${qr}
      <figcaption>${e(m.t('common.scanWithWallet'))}</figcaption>
    </figure>
    <div class="field">
      <p class="label" id="amount-label">${e(view.amountLabel)}</p>
      <p class="value" dir="ltr"><code id="crypto-amount">${e(view.amountToSend || '…')}</code> <span class="unit">${e(data.crypto_currency)}</span></p>
      <button type="button" class="copy" data-copy="crypto-amount">${e(m.t('common.copyAmount'))}</button>
    </div>
    <div class="field">
      <p class="label" id="address-label">${e(m.t('common.toThisAddress'))}</p>
      <p class="value" dir="ltr"><code id="crypto-address" class="address">${e(data.crypto_address)}</code></p>
      <button type="button" class="copy" data-copy="crypto-address">${e(m.t('common.copyAddress'))}</button>
    </div>
    <a id="wallet-link" class="button" href="${e(walletUri(data.crypto_address, view.amountToSend, data.site_name))}"${hidden(view.amountToSend !== '')}>${e(copy.openInWallet)}</a>
    <p id="copy-feedback" class="feedback" role="status" aria-live="polite"></p>
  </section>
  <nav class="actions" aria-label="${e(m.t('common.returnToTheShopNav'))}">
    ${success ? `<a id="success-link" class="button" href="${e(success)}"${hidden(view.showSuccess)}>${shopLink(m, named, 'continue', data.site_name)}</a>` : ''}
    ${cancel ? `<a id="cancel-link" class="link" href="${e(cancel)}"${hidden(view.showCancel)}>${shopLink(m, named, 'cancel', data.site_name)}</a>` : ''}
  </nav>
  <noscript><p class="note">${e(m.t('payment.reloadForLatestStatus'))}</p></noscript>
</main>
${languagePicker(m)}
<script type="application/json" id="page-data">${jsonForScript(state)}</script>`;

  return documentHtml(named ? m.t('common.pageTitlePaymentTo', { shop: data.site_name }) : m.t('common.bitcoinPayment'), assets, body, true, assets.js, m);
}

/** The HTML page answered for an unknown payment reference (with HTTP 404). */
export function renderNotFoundPage(assets: PageAssetUrls = DEFAULT_ASSET_URLS, m: Messages = ENGLISH()): string {
  return messagePage('not-found', m.t('payment.notFoundTitle'), m.t('payment.notFoundText'), assets, m);
}

/** The HTML page answered when the payment cannot be read right now (with HTTP 503). */
export function renderErrorPage(assets: PageAssetUrls = DEFAULT_ASSET_URLS, m: Messages = ENGLISH()): string {
  return messagePage('unavailable', m.t('payment.unavailableTitle'), m.t('payment.unavailableText'), assets, m);
}

/** A page with a title and one message (not found, unavailable). */
export function messagePage(id: string, title: string, text: string, assets: PageAssetUrls, m: Messages = ENGLISH()): string {
  const body = `<main class="card" id="${id}">
  <h1>${e(title)}</h1>
  <p>${e(text)}</p>
</main>
${languagePicker(m)}`;
  return documentHtml(title, assets, body, false, assets.js, m);
}

/** "mm:ss" (or "h:mm:ss") for a remaining time in ms; "expired" at or below zero. */
export function countdownText(remainingMs: number, expired: string = PAGE_COPY.expired): string {
  if (!Number.isFinite(remainingMs) || remainingMs <= 0) return expired;
  const total = Math.ceil(remainingMs / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(h > 0 ? 2 : 1, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

/** The page skeleton every hosted page shares (head, assets, no inline code); `script` picks the page script. */
export function documentHtml(title: string, assets: PageAssetUrls, body: string, withScript: boolean, script = assets.js, m: Messages = ENGLISH()): string {
  return `<!doctype html>
<html lang="${e(m.lang)}" dir="${m.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${e(title)}</title>
<link rel="stylesheet" href="${e(assets.css)}">
${withScript ? `<script src="${e(script)}" defer></script>\n` : ''}</head>
<body>
${body}
</body>
</html>
`;
}

/** "Amount guaranteed for <countdown>": the timer element sits where the language puts it, kept left-to-right. */
export function withCountdown(m: Messages, countdown: string): string {
  const MARK = '\u0000countdown\u0000';
  const [before = '', after = ''] = m.t('common.amountGuaranteedFor', { countdown: MARK }).split(MARK);
  return `${e(before)}<span id="countdown" role="timer" dir="ltr">${e(countdown)}</span>${e(after)}`;
}

/** "Continue to <shop>" / "Cancel and return to <shop>", the shop's name isolated (it may be in another script). */
export function shopLink(m: Messages, named: boolean, which: 'continue' | 'cancel', shop: string): string {
  if (!named) return e(m.t(which === 'continue' ? 'common.continueToTheShop' : 'common.cancelAndReturnToTheShop'));
  const MARK = '\u0000shop\u0000';
  const [before = '', after = ''] = m.t(which === 'continue' ? 'common.continueToShop' : 'common.cancelAndReturnToShop', { shop: MARK }).split(MARK);
  return `${e(before)}<bdi>${e(shop)}</bdi>${e(after)}`;
}

/**
 * The language picker: a plain GET form (works without JavaScript) that reloads the page with `?lang=`; the server
 * remembers the choice in a cookie. Each language is shown in its own name.
 */
export function languagePicker(m: Messages): string {
  const options = LANGUAGES.map(
    (l) => `<option value="${e(l.tag)}" lang="${e(l.tag)}" dir="${l.dir}"${l.tag === m.lang ? ' selected' : ''}>${e(l.name)}</option>`,
  ).join('');
  // In a landmark of its own, so everything on the page sits in one (axe-core's "region" rule).
  return `<nav class="lang-nav" aria-label="${e(m.t('language.pickerLabel'))}"><form class="lang-picker" method="get" action="">
  <label for="lang-select">${e(m.t('language.pickerLabel'))}</label>
  <select id="lang-select" name="lang">${options}</select>
  <button type="submit" class="link">${e(m.t('language.pickerSubmit'))}</button>
</form></nav>`;
}
